import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { Cleanup, httpUpstream, rawInitialize, rawPost, writeConfig } from './support/harness.js';
import { answerTo, RawWs } from './support/raw-wire.js';
import { spawnStdioGateway } from './support/stdio.js';

// `limits.maxJsonDepth` (DESIGN §9, §10): a message nested deeper than the limit is refused at the edge,
// before it is parsed (HTTP 400, -32600, data.reason "too_deep"), on every wire; an upstream's answer
// nested more than twice as deep fails only the request it answers.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const DEEP_UPSTREAM = fileURLToPath(new URL('./fixtures/deep-upstream.js', import.meta.url));
const LIMIT = 10;

/** A tools/call whose message nests `depth` levels: the message 1, params 2, arguments 3, then arrays. */
function callAt(id: number, depth: number, meta?: Record<string, unknown>): string {
  const nested = `${'['.repeat(depth - 3)}${']'.repeat(depth - 3)}`;
  const extra = meta ? `,"_meta":${JSON.stringify(meta)}` : '';
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"docs__echo","arguments":{"x":${nested}}${extra}}}`;
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const TOO_DEEP = { error: { code: -32600, data: { reason: 'too_deep', limit: LIMIT } } };

it('refuses a message nested deeper than limits.maxJsonDepth on every wire, and serves the next', async () => {
  const docs = await httpUpstream(cleanup, { name: 'docs', behaviorTools: true, modern: true });
  const config = await writeConfig(cleanup, {
    listen: {
      stdio: true,
      http: { host: '127.0.0.1', port: 0, path: '/mcp' },
      ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
    },
    limits: { maxJsonDepth: LIMIT },
    mcpServers: { docs: { url: docs.url } },
  });
  const gw = spawnStdioGateway(cleanup, config);
  const http = (await gw.waitForLine(/listening on (http:\/\/\S+\/mcp)/, { timeoutMs: 15_000 }))[1]!;
  const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
  const session = await rawInitialize(http);
  const legacyHeaders = {
    'mcp-session-id': session.sessionId,
    'mcp-protocol-version': session.protocolVersion,
  };
  const modernHeaders = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'docs__echo',
  };

  // At the limit: served. One level deeper, or 100,000: 400 and too_deep, in both eras.
  const atLimit = await rawPost(http, callAt(1, LIMIT), legacyHeaders);
  expect(atLimit.status).toBe(200);
  expect(atLimit.json).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } });
  const calls = docs.server.stats.toolCalls.echo;
  for (const depth of [LIMIT + 1, 100_000]) {
    const legacy = await rawPost(http, callAt(2, depth), legacyHeaders);
    expect(legacy.status, `legacy ${depth}`).toBe(400);
    expect(legacy.json).toMatchObject(TOO_DEEP);
    const modern = await rawPost(http, callAt(3, depth, MODERN_META), modernHeaders);
    expect(modern.status, `modern ${depth}`).toBe(400);
    expect(modern.json).toMatchObject(TOO_DEEP);
  }
  // A modern request at the limit (its _meta adds no level beyond params) is served too.
  const modern = await rawPost(http, callAt(4, LIMIT, MODERN_META), modernHeaders);
  expect(modern.json).toMatchObject({ id: 4, result: { content: [{ type: 'text' }] } });

  const ws = await RawWs.open(wsUrl);
  cleanup.add(() => ws.close());
  ws.send(callAt(5, 100_000));
  expect(await ws.waitFor((m) => (m as { id?: unknown }).id === null, 'the WebSocket refusal')).toMatchObject(
    TOO_DEEP,
  );
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }));
  expect(await ws.waitFor(answerTo(6), 'the WebSocket ping')).toMatchObject({ result: {} });

  gw.send(callAt(7, 100_000));
  expect(await gw.waitForMessage((m) => m.id === null, 'the stdio refusal')).toMatchObject(TOO_DEEP);
  gw.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
  expect(await gw.waitForMessage((m) => m.id === 8, 'the stdio ping')).toMatchObject({ result: {} });

  // None of the refused calls reached the upstream (the modern one at the limit did).
  expect(docs.server.stats.toolCalls.echo).toBe((calls ?? 0) + 1);
  expect(gw.running()).toBe(true);
}, 60_000);

it('fails only the request whose upstream answer nests deeper than the limit; the upstream stays connected', async () => {
  const docs = await httpUpstream(cleanup, { name: 'docs', behaviorTools: true });
  const config = await writeConfig(cleanup, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { deep: { command: process.execPath, args: [DEEP_UPSTREAM] }, docs: { url: docs.url } },
  });
  const gw = spawnStdioGateway(cleanup, config);
  const http = (await gw.waitForLine(/listening on (http:\/\/\S+\/mcp)/, { timeoutMs: 15_000 }))[1]!;
  const session = await rawInitialize(http);
  const headers = { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': session.protocolVersion };
  const call = async (id: number, name: string, args: Record<string, unknown> = {}) =>
    (
      await rawPost(
        http,
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
        headers,
      )
    ).json as Record<string, unknown>;

  // The answer is the message 1, result 2, structuredContent 3, then `depth` arrays; the limit is 2 × 100.
  for (const [id, depth] of [
    [1, 100_000],
    [2, 198],
  ] as const) {
    expect(await call(id, 'deep__deep', { depth })).toMatchObject({
      id,
      error: {
        message: expect.stringContaining('deeper than 200 levels (twice limits.maxJsonDepth)'),
        data: { reason: 'upstream_invalid_result', upstream: 'deep' },
      },
    });
  }
  expect(await call(3, 'deep__deep', { depth: 197 })).toMatchObject({
    id: 3,
    result: { structuredContent: {} },
  });
  expect(await call(4, 'deep__flat')).toMatchObject({ id: 4, result: { content: [{ text: 'flat' }] } });
  expect(await call(5, 'docs__echo', { a: 1 })).toMatchObject({ id: 5, result: {} });
  // Connected once: no reconnect after the spoiled answers.
  expect(gw.stderr().match(/\[switchyard:upstream:deep\] connected/g)).toHaveLength(1);
}, 60_000);
