import type { Client } from '@modelcontextprotocol/client';
import { type Identity, type Logger, type RequestContext, silentLogger } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessOptions } from '../src/index.js';
import {
  alice,
  bob,
  Cleanup,
  carol,
  connect as connectAs,
  FORBIDDEN,
  mallory,
  range,
  gatewayWith as startGateway,
  type UpstreamSpec,
  walk,
} from './support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const DOCS: UpstreamSpec = {
  name: 'docs',
  options: { name: 'docs', resources: 50, pageSize: 10, templates: 2 },
};
const WIKI: UpstreamSpec = { name: 'wiki', options: { name: 'wiki', resources: 5, templates: 1 } };

const gatewayWith = (options: AccessOptions, specs: UpstreamSpec[] = [DOCS, WIKI], logger?: Logger) =>
  startGateway(cleanup, options, specs, logger);
const connect = (gateway: Parameters<typeof connectAs>[1], identity: Identity) =>
  connectAs(cleanup, gateway, identity);

const read = (client: Client, uri: string) => client.request({ method: 'resources/read', params: { uri } });

const docsUri = (i: number) => `docs+test://docs/r/${i}`;
const wikiUri = (i: number) => `wiki+test://wiki/r/${i}`;

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
      code: -32007,
    });
    expect((await client.readResource({ uri: 'wiki+test://wiki/r/1' })).contents).toHaveLength(1);
  });
});
