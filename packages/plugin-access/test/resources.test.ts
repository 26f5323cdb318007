import type { Client } from '@modelcontextprotocol/client';
import type { Identity, Logger } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessOptions } from '../src/index.js';
import {
  alice,
  bob,
  Cleanup,
  connect as connectAs,
  FORBIDDEN,
  gatewayWith as startGateway,
  type UpstreamSpec,
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
const subscribe = (client: Client, uri: string) =>
  client.request({ method: 'resources/subscribe', params: { uri } });
const complete = (client: Client, ref: Record<string, unknown>) =>
  client.request({
    method: 'completion/complete',
    params: { ref, argument: { name: 'id', value: '' } },
  }) as Promise<{ completion: { values: string[] } }>;

const docsUri = (i: number) => `docs+test://docs/r/${i}`;

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
