import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  eventually,
  httpUpstream,
  listAll,
  startGateway,
  tempDir,
} from './support/harness.js';

// The four first-party plugins together, as the docs recommend stacking them (audit → rate limit →
// access → cache), through the real CLI with client tokens: each decision lands in the audit log with
// the identity that caused it, and the cache status of every read.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const TOKENS = { alice: 'alice-token-91ac44d0', bob: 'bob-token-2f7e19b3', carol: 'carol-token-6d02c8aa' };

interface Record_ {
  identity: string;
  method: string;
  uri?: string;
  upstream?: string;
  outcome: 'ok' | 'error';
  errorCode?: number;
  reason?: string;
  cache?: string;
}

it('records every decision of the stack, with identities and cache status, and never a token', async () => {
  const docs = await httpUpstream(cleanup, { name: 'docs', resources: 4 });
  const dir = await tempDir(cleanup);
  const file = join(dir, 'audit.jsonl');
  const gw = await startGateway(
    cleanup,
    {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url: docs.url } },
      clients: {
        alice: { token: '${ALICE}', groups: ['platform'] },
        bob: { token: '${BOB}' },
        carol: { token: '${CAROL}' },
      },
      plugins: [
        ['@switchyard/plugin-audit', { file, fsync: 'always' }],
        // A slow refill: carol's third request in a row is refused whatever the machine's speed.
        ['@switchyard/plugin-rate-limit', { perClient: { requestsPerSecond: 0.01, burst: 3 } }],
        [
          '@switchyard/plugin-access',
          { default: 'allow', rules: [{ effect: 'deny', clients: ['bob'], uris: ['docs+test://docs/r/1'] }] },
        ],
        ['@switchyard/plugin-cache', {}],
      ],
    },
    { env: { ALICE: TOKENS.alice, BOB: TOKENS.bob, CAROL: TOKENS.carol } },
  );
  const alice = await connectHttp(cleanup, gw.url, 'alice', { token: TOKENS.alice });
  const bob = await connectHttp(cleanup, gw.url, 'bob', { token: TOKENS.bob });
  const carol = await connectHttp(cleanup, gw.url, 'carol', { token: TOKENS.carol });
  const read = (client: typeof alice, uri: string) =>
    client.request({ method: 'resources/read', params: { uri } });

  await read(alice, 'docs+test://docs/r/0');
  await read(alice, 'docs+test://docs/r/0');
  expect(docs.server.stats.requests['resources/read']).toBe(1);
  expect((await listAll(bob)).items.map((r) => r.uri)).not.toContain('docs+test://docs/r/1');
  await expect(read(bob, 'docs+test://docs/r/1')).rejects.toMatchObject({ code: -32007 });
  await read(carol, 'docs+test://docs/r/2');
  await read(carol, 'docs+test://docs/r/3');
  await read(carol, 'docs+test://docs/r/2');
  await expect(read(carol, 'docs+test://docs/r/3')).rejects.toMatchObject({
    code: -32006,
    data: { reason: 'rate_limited', retryAfterMs: expect.any(Number) },
  });

  // fsync "always": every answered request's record is on disk already.
  const text = readFileSync(file, 'utf8');
  for (const token of Object.values(TOKENS)) expect(text).not.toContain(token);
  const records = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record_)
    .filter((r) => r.method === 'resources/read');
  expect(
    records.map(({ identity, uri, outcome, reason, cache, upstream }) => ({
      identity,
      uri,
      outcome,
      reason,
      cache,
      upstream,
    })),
  ).toEqual([
    {
      identity: 'alice',
      uri: 'docs+test://docs/r/0',
      outcome: 'ok',
      reason: undefined,
      cache: 'miss',
      upstream: 'docs',
    },
    {
      identity: 'alice',
      uri: 'docs+test://docs/r/0',
      outcome: 'ok',
      reason: undefined,
      cache: 'hit',
      upstream: 'docs',
    },
    {
      identity: 'bob',
      uri: 'docs+test://docs/r/1',
      outcome: 'error',
      reason: 'forbidden',
      cache: undefined,
      upstream: 'docs',
    },
    {
      identity: 'carol',
      uri: 'docs+test://docs/r/2',
      outcome: 'ok',
      reason: undefined,
      cache: 'miss',
      upstream: 'docs',
    },
    {
      identity: 'carol',
      uri: 'docs+test://docs/r/3',
      outcome: 'ok',
      reason: undefined,
      cache: 'miss',
      upstream: 'docs',
    },
    {
      identity: 'carol',
      uri: 'docs+test://docs/r/2',
      outcome: 'ok',
      reason: undefined,
      cache: 'hit',
      upstream: 'docs',
    },
    {
      identity: 'carol',
      uri: 'docs+test://docs/r/3',
      outcome: 'error',
      reason: 'rate_limited',
      cache: undefined,
      upstream: 'docs',
    },
  ]);
  const limited = records.at(-1)!;
  expect(limited.errorCode).toBe(-32006);
  // The cache subscribed upstream to what it holds (coherence), through the shared table.
  await eventually(
    () => (docs.server.stats.subscribeCalls ?? 0) >= 3 || undefined,
    'the cache subscriptions',
  );
});
