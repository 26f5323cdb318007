import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, eventually, httpUpstream, startGateway } from './support/harness.js';

// The real CLI loading @switchyard/plugin-rate-limit by package name (from its dist: build it first),
// in front of a testkit upstream over HTTP, with official SDK clients over Streamable HTTP.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PLUGIN = '@switchyard/plugin-rate-limit';
const HTTP = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

function read(client: Client, index: number, options: { signal?: AbortSignal } = {}) {
  return client.request(
    { method: 'resources/read', params: { uri: `docs+test://docs/r/${index}` } },
    options,
  );
}

describe('@switchyard/plugin-rate-limit through the CLI', () => {
  it('answers rate_limited with retryAfterMs once a client has spent its burst', async () => {
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 5 });
    const gw = await startGateway(cleanup, {
      listen: HTTP,
      mcpServers: { docs: { url: up.url } },
      plugins: [[PLUGIN, { perClient: { requestsPerSecond: 0.05, burst: 2 } }]],
    });
    const client = await connectHttp(cleanup, gw.url);
    await expect(read(client, 0)).resolves.toMatchObject({ contents: [{ uri: 'docs+test://docs/r/0' }] });
    await expect(read(client, 1)).resolves.toBeDefined();
    const error = await read(client, 2).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32006, data: { reason: 'rate_limited' } });
    const { retryAfterMs } = (error as { data: { retryAfterMs: number } }).data;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(20_000);
    expect(up.server.stats.requests['resources/read']).toBe(2);
  });

  it('charges tool calls and prompt gets to the same bucket as reads', async () => {
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 5, tools: 2, prompts: 1 });
    const gw = await startGateway(cleanup, {
      listen: HTTP,
      mcpServers: { docs: { url: up.url } },
      plugins: [[PLUGIN, { perClient: { requestsPerSecond: 0.05, burst: 3 } }]],
    });
    const client = await connectHttp(cleanup, gw.url);
    const call = (name: string) =>
      client.request({ method: 'tools/call', params: { name, arguments: { text: 'x' } } });
    await expect(call('docs__tool_0')).resolves.toMatchObject({ structuredContent: { tool: 'tool_0' } });
    await expect(read(client, 0)).resolves.toBeDefined();
    await expect(
      client.request({ method: 'prompts/get', params: { name: 'docs__prompt_0' } }),
    ).resolves.toBeDefined();
    await expect(call('docs__tool_1')).rejects.toMatchObject({
      code: -32006,
      data: { reason: 'rate_limited' },
    });
    expect(up.server.stats.toolCalls).toEqual({ tool_0: 1 });
  });

  it('keeps a separate bucket for each client token', async () => {
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 5 });
    const gw = await startGateway(
      cleanup,
      {
        listen: HTTP,
        mcpServers: { docs: { url: up.url } },
        clients: { alice: { token: '${ALICE_TOKEN}' }, bob: { token: '${BOB_TOKEN}' } },
        plugins: [[PLUGIN, { perClient: { requestsPerSecond: 0.05, burst: 2 } }]],
      },
      { env: { ALICE_TOKEN: 'alice-secret-token', BOB_TOKEN: 'bob-secret-token' } },
    );
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: 'alice-secret-token' });
    const bob = await connectHttp(cleanup, gw.url, 'bob', { token: 'bob-secret-token' });
    await read(alice, 0);
    await read(alice, 1);
    await expect(read(alice, 2)).rejects.toMatchObject({
      code: -32006,
      data: { reason: 'rate_limited', identity: 'alice' },
    });
    await expect(read(bob, 3)).resolves.toBeDefined();
    await expect(read(bob, 4)).resolves.toBeDefined();
    await expect(read(bob, 0)).rejects.toMatchObject({ code: -32006, data: { identity: 'bob' } });
    expect(gw.stderr()).not.toContain('secret-token');
  });

  it('refuses a call past maxQueue with upstream_busy, and a cancelled call frees its slot', async () => {
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 5 });
    const gw = await startGateway(cleanup, {
      listen: HTTP,
      mcpServers: { docs: { url: up.url } },
      plugins: [[PLUGIN, { perUpstream: { concurrency: 1, maxQueue: 1 } }]],
    });
    const client = await connectHttp(cleanup, gw.url);
    // The upstream never answers the first read: it holds the one concurrency slot.
    up.server.failNext({ method: 'resources/read', mode: 'hang', uri: 'test://docs/r/0' });
    const controller = new AbortController();
    const hung = read(client, 0, { signal: controller.signal }).catch((e: unknown) => e);
    await eventually(() => up.server.stats.requests['resources/read'] === 1, 'the first read upstream');
    // Of two more reads, one may wait (maxQueue 1) and the other is refused at once: the first to
    // settle is the refused one, while the upstream is still holding the first read.
    const more = [1, 2].map((i) =>
      read(client, i).then(
        () => 'ok' as const,
        (e: unknown) => e,
      ),
    );
    expect(await Promise.race(more)).toMatchObject({
      code: -32005,
      data: { reason: 'upstream_busy', upstream: 'docs', maxQueue: 1 },
    });
    expect(up.server.stats.requests['resources/read']).toBe(1);
    // Cancelling the held read frees the slot: the waiting read goes through.
    controller.abort();
    await hung;
    const outcomes = await Promise.all(more);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(up.server.stats.requests['resources/read']).toBe(2);
    await eventually(() => up.server.stats.cancelled === 1, 'the upstream to see the cancellation');
  });
});
