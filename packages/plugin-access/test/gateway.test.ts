import type { Client } from '@modelcontextprotocol/client';
import {
  Gateway,
  type Identity,
  type Logger,
  type RequestContext,
  setupPlugins,
  silentLogger,
} from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import { TestServer, type TestServerOptions } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import access, { type AccessOptions } from '../src/index.js';

// A real gateway in process, real testkit upstreams over HTTP on loopback, official SDK clients over
// in-memory transports, each session acting as one identity.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

const alice: Identity = { id: 'alice', groups: ['platform'], anonymous: false };
const bob: Identity = { id: 'bob', groups: ['contractors'], anonymous: false };
const carol: Identity = { id: 'carol', groups: [], anonymous: false };
const mallory: Identity = { id: 'mallory', groups: [], anonymous: false };

interface UpstreamSpec {
  name: string;
  options: TestServerOptions;
  prefix?: boolean;
}

const DOCS: UpstreamSpec = {
  name: 'docs',
  options: { name: 'docs', resources: 50, pageSize: 10, templates: 2 },
};
const WIKI: UpstreamSpec = { name: 'wiki', options: { name: 'wiki', resources: 5, templates: 1 } };

async function gatewayWith(
  options: AccessOptions,
  specs: UpstreamSpec[] = [DOCS, WIKI],
  logger: Logger = silentLogger,
) {
  const servers = new Map<string, TestServer>();
  const upstreams = await Promise.all(
    specs.map(async (spec) => {
      const server = new TestServer(spec.options);
      cleanup.push(() => server.close());
      servers.set(spec.name, server);
      const { url } = await server.listenHttp();
      return {
        name: spec.name,
        prefix: spec.prefix ?? true,
        timeoutMs: 5_000,
        transport: { kind: 'http' as const, url, headers: {} },
      };
    }),
  );
  const plugins = await setupPlugins([{ plugin: access, options, source: 'test' }], logger);
  const gateway = new Gateway({ upstreams, plugins, logger: silentLogger });
  cleanup.push(() => gateway.close());
  await gateway.start();
  const server = (name: string) => servers.get(name)!;
  return { gateway, server };
}

async function connect(gateway: Gateway, identity: Identity): Promise<Client> {
  const { client, close } = await connectInMemoryClient(gateway, { identity });
  cleanup.push(close);
  return client;
}

type ListMethod = 'resources/list' | 'resources/templates/list';

/** Walks a merged listing with explicit cursors; every page as the client saw it. */
async function walk(client: Client, method: ListMethod = 'resources/list') {
  const field = method === 'resources/list' ? 'resources' : 'resourceTemplates';
  const key = method === 'resources/list' ? 'uri' : 'uriTemplate';
  const pages: { items: string[]; nextCursor: string | undefined }[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request({ method, params: cursor ? { cursor } : {} })) as Record<
      string,
      unknown
    >;
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    const items = ((page[field] as Record<string, unknown>[]) ?? []).map((item) => String(item[key]));
    pages.push({ items, nextCursor: cursor });
  } while (cursor && pages.length < 100);
  return { pages, items: pages.flatMap((p) => p.items) };
}

const read = (client: Client, uri: string) => client.request({ method: 'resources/read', params: { uri } });
const subscribe = (client: Client, uri: string) =>
  client.request({ method: 'resources/subscribe', params: { uri } });
const complete = (client: Client, ref: Record<string, unknown>) =>
  client.request({
    method: 'completion/complete',
    params: { ref, argument: { name: 'id', value: '' } },
  }) as Promise<{ completion: { values: string[] } }>;

const FORBIDDEN = { code: -32034, data: { reason: 'forbidden' } };
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const docsUri = (i: number) => `docs+test://docs/r/${i}`;
const wikiUri = (i: number) => `wiki+test://wiki/r/${i}`;

describe('reads, subscriptions and completions', () => {
  const policy: AccessOptions = {
    default: 'allow',
    rules: [
      {
        effect: 'deny',
        groups: ['contractors'],
        uris: ['docs+test://docs/r/1', 'docs+test://docs/t1/**', 'docs+test://docs/secret/**'],
      },
    ],
  };

  it('refuses denied ones with forbidden without reaching the upstream, and passes allowed ones', async () => {
    const { gateway, server } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    const aliceClient = await connect(gateway, alice);
    const docs = server('docs');
    const readsBefore = docs.stats.requests['resources/read'] ?? 0;

    await expect(read(bobClient, docsUri(1))).rejects.toMatchObject(FORBIDDEN);
    await expect(subscribe(bobClient, docsUri(1))).rejects.toMatchObject(FORBIDDEN);
    expect(docs.stats.requests['resources/read'] ?? 0).toBe(readsBefore);
    expect(docs.stats.subscribeCalls).toBe(0);

    await expect(read(bobClient, docsUri(2))).resolves.toMatchObject({
      contents: [{ uri: docsUri(2), text: 'resource 2' }],
    });
    await expect(subscribe(bobClient, docsUri(2))).resolves.toEqual({});
    expect(docs.stats.subscribeCalls).toBe(1);
    await expect(read(aliceClient, docsUri(1))).resolves.toMatchObject({ contents: [{ uri: docsUri(1) }] });
  });

  it('always lets a client unsubscribe', async () => {
    const { gateway } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    await expect(
      bobClient.request({ method: 'resources/unsubscribe', params: { uri: docsUri(1) } }),
    ).resolves.toEqual({});
  });

  it('refuses completion on a denied template and answers it on an allowed one', async () => {
    const { gateway } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    await expect(
      complete(bobClient, { type: 'ref/resource', uri: 'docs+test://docs/t1/{id}' }),
    ).rejects.toMatchObject(FORBIDDEN);
    const allowed = await complete(bobClient, { type: 'ref/resource', uri: 'docs+test://docs/items/{id}' });
    expect(allowed.completion.values).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('answers forbidden for a denied URI whether or not it exists, with the same message', async () => {
    const { gateway } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    const existing = await read(bobClient, 'docs+test://docs/t1/real').catch((e: unknown) => e);
    const missing = await read(bobClient, 'docs+test://docs/secret/missing').catch((e: unknown) => e);
    const unrouted = await read(bobClient, 'nowhere+test://docs/t1/x').catch((e: unknown) => e);
    expect(existing).toMatchObject(FORBIDDEN);
    expect(missing).toMatchObject(FORBIDDEN);
    const shape = (e: unknown, uri: string) => String((e as Error).message).replace(uri, '<uri>');
    expect(shape(missing, 'docs+test://docs/secret/missing')).toBe(
      shape(existing, 'docs+test://docs/t1/real'),
    );
    expect(String((missing as Error).message)).not.toMatch(/not found|exist/i);
    // Not denied by any rule and served by no upstream: the gateway's own not-found.
    expect(unrouted).not.toMatchObject(FORBIDDEN);
  });

  it('refuses every equivalent spelling of a denied URI', async () => {
    const { gateway, server } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    const readsBefore = server('docs').stats.requests['resources/read'] ?? 0;
    const spellings = [
      'docs+test://docs/r/%31',
      'DOCS+TEST://docs/r/1',
      'Docs+Test://docs/r/1',
      'docs+test://DOCS/r/1',
      'docs+test://docs./r/1',
      'docs+test://someone@docs/r/1',
      'docs+test://docs/r/./1',
      'docs+test://docs/x/../r/1',
      'docs+test://docs/r/x/%2e%2e/1',
      'docs+test://docs/r/x/%2E%2E/1',
      'docs+test://docs/r%2F1',
      'docs+test://docs/%72/1',
      'docs+test://docs/r/%2531',
      'docs+test://docs/r/x/%252e%252e/1',
      'docs+test://docs/r//1',
      'docs+test://docs//r/1',
      'docs+test://docs/r/1/',
      'docs+test://docs/r\\1',
      'docs+test://docs/r/1#fragment',
      'docs+test://docs/r/2?/../../r/1',
      ' docs+test://docs/r/1',
      'docs+test://docs/r/%zz/../1',
    ];
    for (const uri of spellings) {
      await expect(read(bobClient, uri), uri).rejects.toMatchObject(FORBIDDEN);
      await expect(subscribe(bobClient, uri), uri).rejects.toMatchObject(FORBIDDEN);
    }
    expect(server('docs').stats.requests['resources/read'] ?? 0).toBe(readsBefore);
    expect(server('docs').stats.subscribeCalls).toBe(0);
  });

  it('decides prompt completions on client, group and server only (a prompt has no URI)', async () => {
    const { gateway } = await gatewayWith(
      {
        default: 'allow',
        rules: [
          { effect: 'deny', uris: ['**'], methods: ['completion/complete'] },
          { effect: 'deny', clients: ['bob'], servers: ['docs'], methods: ['completion/complete'] },
        ],
      },
      [{ name: 'docs', options: { name: 'docs', resources: 1, fixture: 'conformance' } }],
    );
    const prompt = { type: 'ref/prompt', name: 'docs__test_prompt_with_arguments' };
    const aliceClient = await connect(gateway, alice);
    const bobClient = await connect(gateway, bob);
    await expect(complete(aliceClient, prompt)).resolves.toMatchObject({
      completion: { values: expect.any(Array) },
    });
    await expect(complete(bobClient, prompt)).rejects.toMatchObject(FORBIDDEN);
    await expect(
      complete(aliceClient, { type: 'ref/resource', uri: 'docs+test://docs/items/{id}' }),
    ).rejects.toMatchObject(FORBIDDEN);
  });

  it('applies server rules to completions of unprefixed prompts and templates, routed as the gateway routes them', async () => {
    const { gateway } = await gatewayWith(
      {
        default: 'allow',
        rules: [{ effect: 'deny', clients: ['bob'], servers: ['flat'], methods: ['completion/complete'] }],
      },
      [{ name: 'flat', prefix: false, options: { name: 'flat', resources: 1, fixture: 'conformance' } }],
    );
    const aliceClient = await connect(gateway, alice);
    const bobClient = await connect(gateway, bob);
    const prompt = { type: 'ref/prompt', name: 'test_prompt_with_arguments' };
    const template = { type: 'ref/resource', uri: 'test://flat/items/{id}' };
    await expect(complete(aliceClient, prompt)).resolves.toMatchObject({ completion: expect.any(Object) });
    await expect(complete(aliceClient, template)).resolves.toMatchObject({ completion: expect.any(Object) });
    await expect(complete(bobClient, prompt)).rejects.toMatchObject(FORBIDDEN);
    await expect(complete(bobClient, template)).rejects.toMatchObject(FORBIDDEN);
  });
});

describe('lists', () => {
  it('show each client only what it may read, resources and templates alike', async () => {
    const { gateway } = await gatewayWith({
      default: 'deny',
      rules: [
        { effect: 'allow', groups: ['platform'] },
        { effect: 'deny', uris: ['docs+test://docs/r/1*', 'docs+test://docs/t1/**'] },
        { effect: 'allow', servers: ['docs'] },
        { effect: 'allow', uris: ['wiki+test://wiki/r/0', 'wiki+test://wiki/items/**'] },
      ],
    });
    const aliceClient = await connect(gateway, alice);
    const bobClient = await connect(gateway, bob);

    const everything = [...range(0, 50).map(docsUri), ...range(0, 5).map(wikiUri)];
    expect((await walk(aliceClient)).items.sort()).toEqual(everything.sort());
    expect((await walk(aliceClient, 'resources/templates/list')).items.sort()).toEqual(
      ['docs+test://docs/items/{id}', 'docs+test://docs/t1/{id}', 'wiki+test://wiki/items/{id}'].sort(),
    );

    const hidden = new Set([1, ...range(10, 20)].map(docsUri));
    const bobSees = [
      ...range(0, 50)
        .map(docsUri)
        .filter((u) => !hidden.has(u)),
      wikiUri(0),
    ];
    const bobList = await walk(bobClient);
    expect(bobList.items.sort()).toEqual(bobSees.sort());
    expect((await walk(bobClient, 'resources/templates/list')).items.sort()).toEqual(
      ['docs+test://docs/items/{id}', 'wiki+test://wiki/items/{id}'].sort(),
    );
    // What is listed is readable, and what is hidden is refused.
    for (const uri of bobList.items) await expect(read(bobClient, uri), uri).resolves.toBeDefined();
    for (const uri of hidden) await expect(read(bobClient, uri), uri).rejects.toMatchObject(FORBIDDEN);
    await expect(read(bobClient, wikiUri(1))).rejects.toMatchObject(FORBIDDEN);
  });

  it('refuse a list request only by a rule that names neither servers nor uris', async () => {
    const { gateway } = await gatewayWith({
      default: 'deny',
      rules: [
        { effect: 'deny', clients: ['mallory'], methods: ['resources/list'] },
        { effect: 'allow', uris: ['wiki+**'] },
      ],
    });
    const malloryClient = await connect(gateway, mallory);
    await expect(malloryClient.request({ method: 'resources/list', params: {} })).rejects.toMatchObject(
      FORBIDDEN,
    );
    // Not named by the rule: answered, filtered by the default (deny) and the uris rule.
    expect((await walk(malloryClient, 'resources/templates/list')).items).toEqual([
      'wiki+test://wiki/items/{id}',
    ]);
    const carolList = await walk(await connect(gateway, carol));
    expect(carolList.items.sort()).toEqual(range(0, 5).map(wikiUri).sort());
  });

  it('stay correctly paged when filtering empties whole upstream pages', async () => {
    const { gateway, server } = await gatewayWith({
      default: 'allow',
      rules: [{ effect: 'deny', clients: ['bob'], uris: range(0, 35).map(docsUri) }],
    });
    const bobClient = await connect(gateway, bob);
    const listsBefore = server('docs').stats.requests['resources/list'] ?? 0;
    const { pages, items } = await walk(bobClient);

    const allowed = [...range(35, 50).map(docsUri), ...range(0, 5).map(wikiUri)];
    expect(items.sort()).toEqual(allowed.sort());
    expect(new Set(items).size).toBe(items.length);
    for (const page of pages) {
      if (page.nextCursor !== undefined) expect(page.items.length).toBeGreaterThan(0);
    }
    expect(pages.at(-1)?.nextCursor).toBeUndefined();
    // docs' five pages are each fetched once: four skipped inside the first downstream page, then the fifth.
    expect(pages).toHaveLength(2);
    expect((server('docs').stats.requests['resources/list'] ?? 0) - listsBefore).toBe(5);
  });

  it('end in one page when every remaining page of an upstream is denied', async () => {
    const { gateway } = await gatewayWith({
      default: 'allow',
      rules: [{ effect: 'deny', clients: ['bob'], servers: ['docs'] }],
    });
    const { pages, items } = await walk(await connect(gateway, bob));
    expect(pages).toEqual([{ items: expect.any(Array), nextCursor: undefined }]);
    expect(items.sort()).toEqual(range(0, 5).map(wikiUri).sort());
  });

  it('leave the gateway’s own calls unfiltered: unprefixed servers stay routable for every client', async () => {
    const flat: UpstreamSpec = {
      name: 'flat',
      prefix: false,
      options: { name: 'flat', resources: 3, uriBase: 'flat://x/', templates: 0 },
    };
    const { gateway } = await gatewayWith(
      {
        default: 'allow',
        rules: [
          { effect: 'deny', clients: ['bob'], uris: ['flat://x/r/1'] },
          { effect: 'deny', clients: ['carol'], servers: ['flat'] },
        ],
      },
      [flat, WIKI],
    );
    const aliceClient = await connect(gateway, alice);
    const bobClient = await connect(gateway, bob);
    const carolClient = await connect(gateway, carol);
    // The router indexed flat's URIs through internal (unfiltered) calls, or this read would be not-found.
    await expect(read(aliceClient, 'flat://x/r/1')).resolves.toMatchObject({
      contents: [{ uri: 'flat://x/r/1' }],
    });
    await expect(read(bobClient, 'flat://x/r/1')).rejects.toMatchObject(FORBIDDEN);
    await expect(read(bobClient, 'FLAT://x/./r/%31')).rejects.toMatchObject(FORBIDDEN);
    expect((await walk(bobClient)).items).toContain('flat://x/r/0');
    expect((await walk(bobClient)).items).not.toContain('flat://x/r/1');
    await expect(read(carolClient, 'flat://x/r/0')).rejects.toMatchObject(FORBIDDEN);
    expect((await walk(carolClient)).items.sort()).toEqual(range(0, 5).map(wikiUri).sort());
  });
});

describe('freshness hints on filtered lists', () => {
  const modern: UpstreamSpec = {
    name: 'docs',
    options: { name: 'docs', resources: 3, modern: true, cacheScope: 'public', cacheTtlMs: 60_000 },
  };
  const context = (identity: Identity): RequestContext => ({
    method: 'resources/list',
    params: {},
    session: { id: identity.id, transport: 'memory', identity, notify: async () => {} },
    identity,
    signal: new AbortController().signal,
    notifyRelated: async () => {},
    state: new Map(),
  });

  it('narrows a public list to private when what it holds depends on the caller', async () => {
    const { gateway } = await gatewayWith(
      {
        default: 'allow',
        rules: [{ effect: 'deny', groups: ['contractors'], uris: ['docs+test://docs/r/0'] }],
      },
      [modern],
    );
    const outcome = await gateway.handle(context(alice));
    expect(outcome).toMatchObject({ ok: true, result: { cacheScope: 'private', ttlMs: 60_000 } });
  });

  it('keeps a public list public when the rules are the same for everyone', async () => {
    const { gateway } = await gatewayWith(
      { default: 'allow', rules: [{ effect: 'deny', uris: ['docs+test://docs/r/0'] }] },
      [modern],
    );
    const outcome = await gateway.handle(context(alice));
    expect(outcome).toMatchObject({ ok: true, result: { cacheScope: 'public' } });
    expect(outcome.ok && (outcome.result.resources as unknown[]).length).toBe(2);
  });
});

describe('configuration checks against the running gateway', () => {
  it('warns at start about a rule naming a server that is not configured, and still enforces the rest', async () => {
    const warnings: string[] = [];
    const recording: Logger = {
      ...silentLogger,
      warn: (message) => void warnings.push(message),
      child: () => recording,
    };
    const { gateway } = await gatewayWith(
      {
        default: 'allow',
        rules: [
          { effect: 'deny', servers: ['wikki'] },
          { effect: 'deny', servers: ['docs'], uris: ['docs+test://docs/r/1'] },
        ],
      },
      [DOCS, WIKI],
      recording,
    );
    expect(warnings).toEqual([
      'rules[0].servers names "wikki", which is not a configured upstream (docs, wiki), so it never matches that server',
    ]);
    const client = await connect(gateway, alice);
    await expect(client.readResource({ uri: 'docs+test://docs/r/1' })).rejects.toMatchObject({
      code: -32034,
    });
    expect((await client.readResource({ uri: 'wiki+test://wiki/r/1' })).contents).toHaveLength(1);
  });
});
