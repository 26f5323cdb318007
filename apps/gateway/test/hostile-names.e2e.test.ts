import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, httpUpstream, rawInitialize, rawPost, tempDir, writeConfig } from './support/harness.js';
import { answerTo, RawWs, rawHttp } from './support/raw-wire.js';
import { spawnStdioGateway } from './support/stdio.js';

// Names that are members of Object.prototype (DESIGN §9: "a method or key the gateway does not know,
// `__proto__` and friends included") as a method, a tool or prompt name, a URI, an argument key, on every
// wire; and request targets and admin paths that are no URL at all. Each gets the ordinary answer for an
// unknown or invalid one: never a 5xx or -32603, and the upstream never sees any of them.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** One gateway on stdio, HTTP, WebSocket and admin, with the plugins that look names up, and its upstream. */
async function start() {
  const docs = await httpUpstream(cleanup, {
    name: 'docs',
    resources: 2,
    templates: 1,
    tools: 2,
    prompts: 2,
    behaviorTools: true,
    modern: true,
  });
  const dir = await tempDir(cleanup);
  const config = await writeConfig(cleanup, {
    listen: {
      stdio: true,
      http: { host: '127.0.0.1', port: 0, path: '/mcp' },
      ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
      admin: { host: '127.0.0.1', port: 0 },
    },
    mcpServers: { docs: { url: docs.url } },
    plugins: [
      ['@switchyard/plugin-pin', { lockFile: join(dir, 'lock.json') }],
      ['@switchyard/plugin-approve', { rules: [{ tools: ['docs__slow'], by: ['admins'] }] }],
      [
        '@switchyard/plugin-access',
        { default: 'allow', rules: [{ effect: 'deny', when: 'arguments.deny == 1' }] },
      ],
      ['@switchyard/plugin-secrets', {}],
    ],
  });
  const gw = spawnStdioGateway(cleanup, config);
  const http = (await gw.waitForLine(/listening on (http:\/\/\S+\/mcp)/, { timeoutMs: 15_000 }))[1]!;
  const ws = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
  const admin = (await gw.waitForLine(/admin listening on (http:\/\/\S+)/))[1]!;
  return { docs, gw, http, ws, admin };
}

/** The requests a client could make with `name` in each place a name goes. */
function requests(name: string): { method: string; params: Record<string, unknown> }[] {
  return [
    { method: name, params: {} },
    { method: 'tools/call', params: { name, arguments: {} } },
    { method: 'tools/call', params: { name: `docs__${name}`, arguments: { [name]: 1 } } },
    {
      method: 'tools/call',
      params: { name: 'docs__echo', arguments: JSON.parse(`{"${name}": {"deny": 1}}`) },
    },
    { method: 'prompts/get', params: { name: `docs__${name}`, arguments: { [name]: 'x' } } },
    { method: 'resources/read', params: { uri: `docs+test://docs/${name}` } },
    { method: 'resources/read', params: { uri: `${name}+test://x` } },
    {
      method: 'completion/complete',
      params: { ref: { type: 'ref/prompt', name: `docs__${name}` }, argument: { name, value: 'a' } },
    },
    { method: 'tools/list', params: JSON.parse(`{"${name}": 1, "_meta": {"${name}": 1}}`) },
  ];
}

type Answer = { error?: { code?: number; data?: { reason?: string } }; result?: unknown };

/** A JSON-RPC answer that is an error (never an internal one) or a result. */
function expectOrdinary(answer: unknown, what: string): void {
  const a = answer as Answer;
  expect(a.error !== undefined || a.result !== undefined, `${what}: ${JSON.stringify(a)}`).toBe(true);
  expect(a.error?.code, `${what}: ${JSON.stringify(a)}`).not.toBe(-32603);
}

describe('names that are Object.prototype members', () => {
  it('are answered as unknown on every wire and never reach the upstream', async () => {
    const { docs, gw, http, ws } = await start();
    const session = await rawInitialize(http);
    const socket = await RawWs.open(ws);
    cleanup.add(() => socket.close());
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
    await socket.waitFor(answerTo('init'), 'the WebSocket initialize result');
    gw.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await gw.waitForMessage((m) => m.id === 'init', 'the stdio initialize result');
    for (const wire of [socket, gw]) {
      const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
      if (wire === socket) socket.send(JSON.stringify(note));
      else gw.send(note);
    }

    let id = 0;
    for (const name of NAMES) {
      for (const { method, params } of requests(name)) {
        const what = `${method} ${JSON.stringify(params)}`;
        const legacy = await rawPost(http, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }), {
          'mcp-session-id': session.sessionId,
          'mcp-protocol-version': session.protocolVersion,
        });
        expect(legacy.status, `legacy ${what}`).toBeLessThan(500);
        expectOrdinary(legacy.json, `legacy ${what}`);
        if (method === name) {
          expect(legacy.status).toBe(200);
          expect(legacy.json).toMatchObject({ id, error: { code: -32601 } });
        }

        const modernParams = { ...params, _meta: { ...(params._meta as object), ...MODERN_META } };
        const named = (params.name ?? params.uri) as string | undefined;
        const modern = await rawPost(
          http,
          JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: modernParams }),
          {
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': method,
            ...(named === undefined ? {} : { 'mcp-name': named }),
          },
        );
        expect(modern.status, `modern ${what}`).toBeLessThan(500);
        expectOrdinary(modern.json, `modern ${what}`);
        if (method === name) {
          expect(modern.status).toBe(404);
          expect(modern.json).toMatchObject({ id, error: { code: -32601 } });
        }

        const wsId = ++id;
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: wsId, method, params }));
        const overWs = await socket.waitFor(answerTo(wsId), `the WebSocket answer to ${what}`);
        expectOrdinary(overWs, `ws ${what}`);
        if (method === name) expect(overWs).toMatchObject({ error: { code: -32601 } });

        const stdioId = ++id;
        gw.send({ jsonrpc: '2.0', id: stdioId, method, params });
        const overStdio = await gw.waitForMessage((m) => m.id === stdioId, `the stdio answer to ${what}`);
        expectOrdinary(overStdio, `stdio ${what}`);
        if (method === name) expect(overStdio).toMatchObject({ error: { code: -32601 } });
      }
    }
    // initialize with bad params under a 2026-07-28 claim, on a legacy session and over WebSocket, reaches
    // an SDK Server that would answer -32603: it gets -32602 first.
    const claimed = {
      jsonrpc: '2.0',
      id: 'claimed',
      method: 'initialize',
      params: { capabilities: {}, _meta: MODERN_META },
    };
    const onSession = await rawPost(http, JSON.stringify(claimed), {
      'mcp-session-id': session.sessionId,
      'mcp-protocol-version': session.protocolVersion,
    });
    expect(onSession.json).toMatchObject({ id: 'claimed', error: { code: -32602 } });
    // In a batch without a session: the specification's classifier (the SDK's) refuses a batch holding a
    // 2026-07-28 message outright, before anything parses its params.
    const batch = await rawPost(http, JSON.stringify([claimed]));
    expect(batch).toMatchObject({
      status: 400,
      json: {
        id: null,
        error: { code: -32600, message: expect.stringContaining('batches may not contain') },
      },
    });
    socket.send(JSON.stringify(claimed));
    expect(await socket.waitFor(answerTo('claimed'), 'the WebSocket answer')).toMatchObject({
      error: { code: -32602 },
    });

    // The upstream was asked for none of them (its counters are keyed by what it received).
    for (const name of NAMES) {
      expect(Object.hasOwn(docs.server.stats.requests, name), name).toBe(false);
      expect(Object.hasOwn(docs.server.stats.toolCalls, name), name).toBe(false);
      expect(Object.hasOwn(docs.server.stats.promptGets, name), name).toBe(false);
    }
    expect(gw.running()).toBe(true);
  }, 120_000);
});

describe('request targets and admin paths that are no URL path', () => {
  it('are answered 404 (or 400/431 in JSON) by the HTTP, WebSocket and admin listeners, never 500', async () => {
    const { http, ws, admin } = await start();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const target of ['//[', '//[::1', 'http://[', '/mcp/%zz/..']) {
      const mcp = await rawHttp(http, { target, headers, body });
      expect(mcp.status, `MCP ${target}: ${mcp.body}`).toBe(404);
      expect(JSON.parse(mcp.body)).toMatchObject({ error: { data: { reason: 'not_found' } } });
      const upgrade = await rawHttp(ws, {
        method: 'GET',
        target,
        headers: {
          upgrade: 'websocket',
          connection: 'Upgrade',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-version': '13',
          'sec-websocket-protocol': 'mcp',
        },
      });
      expect(upgrade.status, `WebSocket ${target}`).toBe(404);
      const page = await rawHttp(admin, { method: 'GET', target });
      expect(page.status, `admin ${target}: ${page.body}`).toBe(404);
    }
    // What node's HTTP parser refuses (headers over 16 KiB, a broken header line) is answered in JSON too.
    for (const [url, status] of [
      [http, 431],
      [ws, 431],
      [admin, 431],
    ] as const) {
      const big = await rawHttp(url, {
        target: '/mcp',
        headers: { ...headers, 'x-big': 'a'.repeat(20_000) },
        body,
      });
      expect(big.status, url).toBe(status);
      expect(JSON.parse(big.body), url).toMatchObject(
        url === admin ? { error: expect.any(String) } : { error: { data: { reason: 'malformed_http' } } },
      );
      // Megabytes of headers: the answer still arrives before the connection closes (no reset).
      const huge = await rawHttp(url, {
        target: '/mcp',
        headers: { ...headers, 'x-big': 'a'.repeat(6_000_000) },
        body,
      });
      expect(huge.status, url).toBe(status);
      const broken = await rawHttp(url, { target: '/mcp', headers: { ...headers, 'bad header': 'x' }, body });
      expect(broken.status, url).toBe(400);
      expect(JSON.parse(broken.body), url).toBeDefined();
      // Found from outside: an Expect other than 100-continue got node's bare 417.
      const expectation = await rawHttp(url, {
        target: '/mcp',
        headers: { ...headers, expect: 'foo' },
        body,
      });
      expect(expectation.status, url).toBe(417);
      expect(JSON.parse(expectation.body), url).toMatchObject(
        url === admin
          ? { error: expect.stringContaining('100-continue') }
          : { error: { data: { reason: 'malformed_http' } } },
      );
    }
    for (const path of ['/admin/approvals/%zz', '/admin/approvals/%E0%A4%A', '/admin/approvals/%']) {
      for (const method of ['GET', 'POST']) {
        const answer = await rawHttp(admin, {
          method,
          target: path,
          headers,
          body: '{"decision":"approve"}',
        });
        expect(answer.status, `${method} ${path}: ${answer.body}`).toBe(404);
      }
    }
    for (const id of NAMES) {
      const answer = await rawHttp(admin, {
        target: `/admin/approvals/${id}`,
        headers,
        body: '{"decision":"approve"}',
      });
      expect(answer.status, `approval ${id}: ${answer.body}`).toBe(404);
      const pin = await rawHttp(admin, {
        target: '/admin/pins/approve',
        headers,
        body: JSON.stringify({ name: id }),
      });
      expect(pin.status, `pin ${id}: ${pin.body}`).toBe(404);
    }
  }, 60_000);
});
