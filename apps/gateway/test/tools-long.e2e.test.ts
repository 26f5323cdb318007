import type { Client } from '@modelcontextprotocol/client';
import type { TestServerStats } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, eventually, httpUpstream, rawInitialize } from './support/harness.js';
import {
  connectModernHttp,
  connectWs,
  errorOf,
  type Json,
  startEverywhere,
  stdioUpstream,
} from './support/named.js';

// Long tool calls through the CLI: progress keeps a call alive past the server's timeoutMs and reaches
// the caller under its own token, silence is a timeout, and a client's cancellation ends the call
// upstream — from every downstream transport and era, to a legacy HTTP, a modern HTTP and a stdio upstream.

const TIMEOUT_MS = 1_000;

// One gateway for the file (each test asserts on what it changed): the behaviour tools on three
// upstreams with a short timeoutMs, and a client of each transport and era.
const shared = new Cleanup();
afterAll(() => shared.run());
let fx: Awaited<ReturnType<typeof setup>>;
beforeAll(async () => {
  fx = await setup();
}, 30_000);

async function setup() {
  const web = await httpUpstream(shared, { name: 'web', resources: 0, behaviorTools: true });
  const mod = await httpUpstream(shared, { name: 'mod', modern: true, resources: 0, behaviorTools: true });
  const local = await stdioUpstream(shared, 'local', ['--resources', '0', '--behavior-tools']);
  const gw = await startEverywhere(shared, {
    web: { url: web.url, timeoutMs: TIMEOUT_MS },
    mod: { url: mod.url, timeoutMs: TIMEOUT_MS },
    local: { ...local.config, timeoutMs: TIMEOUT_MS },
  });
  // The short timeoutMs also bounds each connection handshake: on a busy machine a first attempt may time
  // out and be retried (a stdio child is then spawned anew, with a new control URL).
  for (const name of ['web', 'mod', 'local']) {
    await gw.logs.waitFor(new RegExp(`\\[switchyard:upstream:${name}\\] connected`), 20_000);
  }
  const upstreams: Record<string, () => Promise<TestServerStats>> = {
    web: async () => web.server.stats,
    mod: async () => mod.server.stats,
    local: async () => (await local.control()).stats(),
  };
  const clients: Record<string, Client> = {
    'HTTP legacy': await connectHttp(shared, gw.httpUrl),
    'HTTP modern': await connectModernHttp(shared, gw.httpUrl),
    stdio: gw.stdio,
    WebSocket: await connectWs(shared, gw.wsUrl),
  };
  return { gw, upstreams, clients };
}

/** POSTs one request on a legacy session and returns every JSON-RPC message of the answer, in order. */
async function postStream(url: string, session: Awaited<ReturnType<typeof rawInitialize>>, body: Json) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session.sessionId,
      'mcp-protocol-version': session.protocolVersion,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  // The gateway answers a call that needs no stream (no progress to relay) with plain JSON.
  if (res.headers.get('content-type')?.startsWith('application/json')) return [JSON.parse(text) as Json];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
    .map((line) => JSON.parse(line.slice(5)) as Json);
}

const STEPS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('long tool calls', () => {
  it('progress keeps calls alive past timeoutMs, every client to every upstream, under the caller token', async () => {
    const { gw, upstreams, clients } = fx;
    const slowCalls = () =>
      Promise.all(Object.values(upstreams).map(async (stats) => (await stats()).toolCalls.slow ?? 0));
    const before = await slowCalls();
    // 2.5 times the timeout, with progress every 250 ms.
    const args = { ms: 2.5 * TIMEOUT_MS, steps: 10 };
    const runs = Object.entries(clients).flatMap(([kind, client]) =>
      Object.keys(upstreams).map(async (server) => {
        const progress: number[] = [];
        const result = await client.callTool(
          { name: `${server}__slow`, arguments: args },
          { onprogress: (p) => progress.push(p.progress), timeout: 15_000 },
        );
        expect(result.content, `${kind} → ${server}`).toEqual([
          { type: 'text', text: `slept ${args.ms} ms` },
        ]);
        expect(progress, `${kind} → ${server}`).toEqual(STEPS);
      }),
    );
    // A raw legacy session picks its own token: every progress notification carries exactly it; a call
    // without a token gets none (the gateway still asks the upstream for progress, to keep the call alive).
    const session = await rawInitialize(gw.httpUrl);
    const call = (id: number, server: string, _meta?: Json) =>
      postStream(gw.httpUrl, session, {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: `${server}__slow`, arguments: args, ...(_meta ? { _meta } : {}) },
      });
    const raw = call(7, 'local', { progressToken: 'caller-token-7' });
    const quiet = call(8, 'web');
    await Promise.all(runs);
    const messages = await raw;
    expect(messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params)).toEqual(
      STEPS.map((n) => ({ progressToken: 'caller-token-7', progress: n, total: 10 })),
    );
    expect(messages.at(-1)).toMatchObject({ id: 7, result: { content: [{ type: 'text' }] } });
    expect(await quiet).toEqual([
      { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: `slept ${args.ms} ms` }] } },
    ]);
    const after = await slowCalls();
    expect(after.map((calls, i) => calls - before[i]!)).toEqual([5, 4, 5]); // web, mod, local: a call from each client, and the raw ones
  });

  it('silence past timeoutMs is upstream_timeout, and the upstream call is ended', async () => {
    const { upstreams, clients } = fx;
    await Promise.all(
      Object.entries(upstreams).map(async ([server, stats]) => {
        const error = await errorOf(
          clients['HTTP legacy']!.callTool(
            { name: `${server}__slow`, arguments: { ms: 20 * TIMEOUT_MS, steps: 1 } },
            { onprogress: () => {}, timeout: 15_000 },
          ),
        );
        expect(error, server).toMatchObject({
          code: -32004,
          data: { reason: 'upstream_timeout', upstream: server },
        });
        await eventually(async () => (await stats()).activeToolCalls === 0, `the ${server} call to end`);
      }),
    );
  });

  it('a client cancelling its call ends it upstream, from every client to every upstream', async () => {
    const { upstreams, clients } = fx;
    for (const [kind, client] of Object.entries(clients)) {
      for (const [server, stats] of Object.entries(upstreams)) {
        const what = `${kind} → ${server}`;
        const cancelledBefore = (await stats()).cancelled;
        const abort = new AbortController();
        const call = errorOf(
          // Progress every 250 ms keeps it alive: only the cancellation can end it.
          client.callTool(
            { name: `${server}__slow`, arguments: { ms: 60_000, steps: 240 } },
            { signal: abort.signal },
          ),
        );
        await eventually(
          async () => (await stats()).activeToolCalls === 1,
          `the ${what} call to run upstream`,
        );
        abort.abort('user gave up');
        expect(await call, what).toBeDefined();
        await eventually(
          async () => (await stats()).activeToolCalls === 0,
          `the ${what} call to end upstream`,
        );
        // A legacy upstream hears notifications/cancelled; a modern one over HTTP sees its request aborted.
        if (server !== 'mod') expect((await stats()).cancelled, what).toBe(cancelledBefore + 1);
      }
    }
  });
});
