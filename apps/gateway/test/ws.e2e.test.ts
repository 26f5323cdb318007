import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import {
  MCP_WS_SUBPROTOCOL,
  WebSocketClientTransport,
  WebSocketSessionTransport,
} from '@switchyard/core/listener';
import { TestServer, type TestServerOptions } from '@switchyard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import {
  Cleanup,
  connectHttp,
  eventually,
  freePort,
  httpUpstream,
  listAll,
  nextNotification,
  spawnGateway,
  startGateway,
  writeConfig,
} from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
/** For the one gateway the upgrade checks and the protocol-error tests share (see plainGateway). */
const shared = new Cleanup();
afterAll(() => shared.run());

const wsListen = { host: '127.0.0.1', port: 0, path: '/mcp' };

// ---- helpers ---------------------------------------------------------------------------------------

/** Rejects if `promise` does not settle within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Spawns the gateway CLI with a `listen.ws` listener (and optionally an HTTP one) and waits for the
 * `listening on ws://…` line (the harness's startGateway only waits for the HTTP one).
 */
async function startWsGateway(
  mcpServers: Record<string, unknown>,
  options: { http?: boolean; startupMs?: number; owner?: Cleanup } = {},
) {
  const owner = options.owner ?? cleanup;
  const listen: Record<string, unknown> = { ws: wsListen };
  if (options.http) listen.http = { host: '127.0.0.1', port: 0, path: '/mcp' };
  const file = await writeConfig(owner, { listen, mcpServers });
  const gw = spawnGateway(owner, ['--config', file]);
  const timeoutMs = options.startupMs ?? 15_000;
  const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/, { timeoutMs }))[1]!;
  const httpUrl = options.http
    ? (await gw.waitForLine(/listening on (http:\/\/\S+)/, { timeoutMs }))[1]!
    : '';
  return Object.assign(gw, { wsUrl, httpUrl });
}

/** The official SDK v2 client over Switchyard's WebSocketClientTransport. */
async function connectWs(url: string, name = 'ws-client'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new WebSocketClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  return client;
}

type Outcome = { status: number } | { opened: string };

/** Attempts an upgrade with a raw `ws` client: the HTTP status it was refused with, or the protocol it got. */
function upgrade(url: string, protocols: string[], headers: Record<string, string> = {}): Promise<Outcome> {
  const ws = new WebSocket(url, protocols, { headers });
  cleanup.add(() => ws.terminate());
  ws.on('error', () => {});
  return within(
    new Promise<Outcome>((resolve, reject) => {
      ws.once('error', reject); // e.g. ECONNREFUSED: nothing listens there
      ws.once('unexpected-response', (_req, res) => {
        resolve({ status: res.statusCode ?? 0 });
        res.resume();
      });
      ws.once('open', () => resolve({ opened: ws.protocol }));
    }),
    5_000,
    `upgrade to ${url}`,
  );
}

type Json = Record<string, unknown>;

/** A raw WebSocket MCP client (subprotocol mcp) that records every text frame it receives. */
class RawClient {
  readonly ws: WebSocket;
  readonly messages: Json[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #nextId = 1000;

  constructor(url: string) {
    this.ws = new WebSocket(url, MCP_WS_SUBPROTOCOL);
    cleanup.add(() => this.ws.terminate());
    this.ws.on('error', () => {}); // writes after the gateway hung up may fail; the close code is what counts
    this.ws.on('message', (data, isBinary) => {
      if (!isBinary) this.messages.push(JSON.parse(data.toString()) as Json);
    });
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static async open(url: string): Promise<RawClient> {
    const client = new RawClient(url);
    await within(once(client.ws, 'open'), 5_000, 'raw client open');
    expect(client.ws.protocol).toBe(MCP_WS_SUBPROTOCOL);
    return client;
  }

  get socket(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket;
  }

  /** Sends a request and returns its id. */
  request(method: string, params: Json = {}): number {
    const id = this.#nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return id;
  }

  response(id: number | null, timeoutMs = 5_000): Promise<Json> {
    return eventually(() => this.messages.find((m) => m.id === id), `response to id ${id}`, timeoutMs);
  }

  async call(method: string, params: Json = {}): Promise<Json> {
    return this.response(this.request(method, params));
  }

  async initialize(): Promise<void> {
    const init = await this.call('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    expect(init.result).toMatchObject({ serverInfo: { name: 'switchyard' } });
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }

  closeEvent(timeoutMs = 10_000) {
    return within(this.closed, timeoutMs, 'close event');
  }
}

/** A TestServer served over WebSocket (subprotocol mcp) from this process, on an ephemeral port. */
async function wsUpstream(options: TestServerOptions) {
  const server = new TestServer(options);
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    handleProtocols: (protocols) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
  });
  await once(wss, 'listening');
  let connections = 0;
  wss.on('connection', (socket) => {
    connections += 1;
    void server.createServer().connect(new WebSocketSessionTransport(socket));
  });
  cleanup.add(() => server.close());
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => resolve());
      }),
  );
  const { port } = wss.address() as AddressInfo;
  return { server, wss, url: `ws://127.0.0.1:${port}/mcp`, connections: () => connections };
}

// ---- downstream: SDK client over WebSocket ------------------------------------------------------------

describe('gateway over WebSocket (listen.ws)', () => {
  it('serves an SDK client: initialize, merged list, read, subscribe → updated, unsubscribe', async () => {
    const alpha = await httpUpstream(cleanup, { name: 'alpha', resources: 12, pageSize: 5 });
    const beta = await httpUpstream(cleanup, { name: 'beta', resources: 3 });
    const gw = await startWsGateway({ alpha: { url: alpha.url }, beta: { url: beta.url } });
    expect(gw.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const client = await connectWs(gw.wsUrl);
    expect(client.getServerVersion()?.name).toBe('switchyard');
    expect(client.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
    });
    await expect(client.ping()).resolves.toEqual({});

    const { items, pages } = await listAll(client);
    expect(pages).toBe(3); // alpha pages by 5 → 3 pages; beta fits in one
    const uris = items.map((r) => r.uri as string);
    expect(uris).toHaveLength(12 + 3);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toContain('alpha+test://alpha/r/11');
    expect(uris).toContain('beta+test://beta/r/2');

    const read = await client.request({ method: 'resources/read', params: { uri: 'beta+test://beta/r/1' } });
    expect(read.contents).toEqual([
      { uri: 'beta+test://beta/r/1', mimeType: 'text/plain', text: 'resource 1' },
    ]);

    const uri = 'test://alpha/r/7';
    await client.subscribeResource({ uri: `alpha+${uri}` });
    expect(alpha.server.stats.subscribed[uri]).toBe(1);
    const updated = nextNotification(client, 'notifications/resources/updated');
    await alpha.server.triggerUpdated(uri);
    expect(await updated).toMatchObject({ uri: `alpha+${uri}` });

    await client.unsubscribeResource({ uri: `alpha+${uri}` });
    await eventually(() => alpha.server.stats.subscribed[uri] === 0, 'upstream unsubscribe');
    expect(alpha.server.stats.unsubscribeCalls).toBe(1);
  });

  it('announces "listening on" only once every listener accepts connections', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1 });
    const wsPort = await freePort();
    // startGateway returns at the first "listening on http://" line; the WebSocket listener opens after
    // the HTTP one, so this upgrade right away proves the line waited for it.
    await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' }, ws: { ...wsListen, port: wsPort } },
      mcpServers: { docs: { url: docs.url } },
    });
    expect(await upgrade(`ws://127.0.0.1:${wsPort}/mcp`, [MCP_WS_SUBPROTOCOL])).toEqual({
      opened: MCP_WS_SUBPROTOCOL,
    });
  });

  it('gives every connection its own session and releases its subscriptions when it closes', async () => {
    const alpha = await httpUpstream(cleanup, { name: 'alpha', resources: 3 });
    const gw = await startWsGateway({ alpha: { url: alpha.url } });
    const a = await connectWs(gw.wsUrl, 'a');
    const b = await connectWs(gw.wsUrl, 'b');
    const uri = 'test://alpha/r/0';
    await a.subscribeResource({ uri: `alpha+${uri}` });
    const seenByB: unknown[] = [];
    b.setNotificationHandler('notifications/resources/updated', (n) => {
      seenByB.push(n.params);
    });
    const gotA = nextNotification(a, 'notifications/resources/updated');
    await alpha.server.triggerUpdated(uri);
    await gotA;
    await b.ping(); // any misrouted notification to b would have been sent before this answer
    expect(seenByB).toEqual([]);
    await a.close(); // the socket closing ends the session, which releases its upstream subscription
    await eventually(() => alpha.server.stats.subscribed[uri] === 0, 'subscription released on close');
    await expect(b.ping()).resolves.toEqual({});
  });
});

// ---- upstream: a ws:// MCP server behind the gateway ---------------------------------------------------

describe('WebSocket upstream (mcpServers entry with a ws:// url)', () => {
  it('lists, reads and subscribes through the gateway over HTTP', async () => {
    const sock = await wsUpstream({ name: 'sock', resources: 4, templates: 1 });
    const gw = await startWsGateway(
      {
        sock: { url: sock.url },
        // the explicit form; same upstream server, different namespace
        explicit: { url: sock.url, transport: 'ws', headers: { 'x-test': '1' } },
      },
      { http: true },
    );
    expect(sock.connections()).toBe(2);
    for (const socket of sock.wss.clients) expect(socket.protocol).toBe(MCP_WS_SUBPROTOCOL);

    const client = await connectHttp(cleanup, gw.httpUrl);
    const { items } = await listAll(client);
    const uris = items.map((r) => r.uri as string).sort();
    expect(uris).toEqual([
      ...[0, 1, 2, 3].map((i) => `explicit+test://sock/r/${i}`),
      ...[0, 1, 2, 3].map((i) => `sock+test://sock/r/${i}`),
    ]);
    const templates = await listAll(client, 'resources/templates/list');
    expect(templates.items.map((t) => t.uriTemplate).sort()).toEqual([
      'explicit+test://sock/items/{id}',
      'sock+test://sock/items/{id}',
    ]);

    const read = await client.request({
      method: 'resources/read',
      params: { uri: 'sock+test://sock/items/9' },
    });
    expect(read.contents[0]).toMatchObject({ uri: 'sock+test://sock/items/9', text: 'item 9' });
    const viaExplicit = await client.request({
      method: 'resources/read',
      params: { uri: 'explicit+test://sock/r/2' },
    });
    expect(viaExplicit.contents[0]).toMatchObject({ uri: 'explicit+test://sock/r/2', text: 'resource 2' });

    await client.subscribeResource({ uri: 'sock+test://sock/r/1' });
    expect(sock.server.stats.subscribed['test://sock/r/1']).toBe(1);
    const updated = nextNotification(client, 'notifications/resources/updated');
    await sock.server.triggerUpdated('test://sock/r/1');
    expect(await updated).toMatchObject({ uri: 'sock+test://sock/r/1' });
  });

  it('reconnects when the upstream closes its WebSocket, and re-establishes subscriptions', async () => {
    const sock = await wsUpstream({ name: 'sock', resources: 3 });
    const gw = await startWsGateway({ sock: { url: sock.url } }, { http: true });
    const client = await connectHttp(cleanup, gw.httpUrl);
    await client.subscribeResource({ uri: 'sock+test://sock/r/0' });
    expect(sock.server.stats.subscribeCalls).toBe(1);
    const connectedBefore = gw.stderr().match(/\] connected\b/g)?.length ?? 0;
    expect(connectedBefore).toBe(1);

    for (const socket of sock.wss.clients) socket.close(1001, 'restarting');
    await gw.waitForLine(/upstream disconnected/);
    await eventually(() => (gw.stderr().match(/\] connected\b/g)?.length ?? 0) === 2, 'reconnect log line');
    expect(sock.connections()).toBe(2);

    const read = await client.request({ method: 'resources/read', params: { uri: 'sock+test://sock/r/2' } });
    expect(read.contents[0]).toMatchObject({ uri: 'sock+test://sock/r/2', text: 'resource 2' });
    // The gateway re-subscribes on the new connection, so updates keep flowing.
    await eventually(() => sock.server.stats.subscribeCalls === 2, 'subscription re-established upstream');
    const updated = nextNotification(client, 'notifications/resources/updated');
    await sock.server.triggerUpdated('test://sock/r/0');
    expect(await updated).toMatchObject({ uri: 'sock+test://sock/r/0' });
  });

  it('starts and serves the other upstreams while a ws:// upstream is down', async () => {
    const alpha = await httpUpstream(cleanup, { name: 'alpha', resources: 2 });
    const down = await wsUpstream({ name: 'down' });
    const downUrl = down.url;
    await new Promise<void>((resolve) => down.wss.close(() => resolve())); // nothing listens there now
    // Under the 10 s the start waits at most for slow upstreams: the refused one does not hold it (9 s,
    // not less: a loaded 2-core box took over 4 s just to boot the CLI).
    const gw = await startWsGateway(
      { alpha: { url: alpha.url }, down: { url: downUrl } },
      { startupMs: 9_000 },
    );
    const client = await connectWs(gw.wsUrl);
    const read = await client.request({
      method: 'resources/read',
      params: { uri: 'alpha+test://alpha/r/1' },
    });
    expect(read.contents[0]).toMatchObject({ text: 'resource 1' });
  });
});

/**
 * One WebSocket gateway in front of alpha (2 resources) for the upgrade checks and the protocol-error
 * tests: each opens its own connections, and what one connection gets (an error answer, a close) leaves the
 * gateway and the other connections as they were (the tests that close a connection check that too).
 */
let plain: ReturnType<typeof startPlainGateway> | undefined;
async function startPlainGateway() {
  const alpha = await httpUpstream(shared, { name: 'alpha', resources: 2 });
  return startWsGateway({ alpha: { url: alpha.url } }, { owner: shared });
}
const plainGateway = () => {
  plain ??= startPlainGateway();
  return plain;
};

// ---- refusals at the upgrade ------------------------------------------------------------------------

describe('WebSocket upgrade checks', () => {
  it('refuses a missing subprotocol (400), a foreign Origin or Host (403) and a wrong path (404)', async () => {
    const gw = await plainGateway();
    const port = new URL(gw.wsUrl).port;

    expect(await upgrade(gw.wsUrl, [])).toEqual({ status: 400 });
    expect(await upgrade(gw.wsUrl, ['graphql-ws'])).toEqual({ status: 400 });
    expect(await upgrade(gw.wsUrl, [MCP_WS_SUBPROTOCOL], { origin: 'http://evil.example' })).toEqual({
      status: 403,
    });
    expect(await upgrade(gw.wsUrl, [MCP_WS_SUBPROTOCOL], { host: `evil.example:${port}` })).toEqual({
      status: 403,
    });
    expect(await upgrade(gw.wsUrl.replace(/\/mcp$/, '/other'), [MCP_WS_SUBPROTOCOL])).toEqual({
      status: 404,
    });

    // Accepted: loopback Origins, no Origin at all, and "mcp" among other offered subprotocols.
    for (const origin of [`http://localhost:${port}`, 'http://127.0.0.1:5173']) {
      expect(await upgrade(gw.wsUrl, [MCP_WS_SUBPROTOCOL], { origin })).toEqual({
        opened: MCP_WS_SUBPROTOCOL,
      });
    }
    expect(await upgrade(gw.wsUrl, ['graphql-ws', MCP_WS_SUBPROTOCOL])).toEqual({
      opened: MCP_WS_SUBPROTOCOL,
    });

    // A plain HTTP request to the WebSocket listener is told to upgrade.
    const plain = await fetch(gw.wsUrl.replace(/^ws:/, 'http:'));
    expect(plain.status).toBe(426);
    await plain.body?.cancel();
    expect(gw.stderr()).toMatch(/upgrade refused/);
  });
});

// ---- protocol errors on an open connection -------------------------------------------------------

describe('WebSocket protocol errors', () => {
  async function openSession() {
    const gw = await plainGateway();
    return { gw, raw: await RawClient.open(gw.wsUrl) };
  }

  it('answers a non-JSON text frame with -32700 and keeps the connection open', async () => {
    const { raw } = await openSession();
    raw.ws.send('{ this is not json');
    const error = await raw.response(null);
    expect(error).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(raw.ws.readyState).toBe(WebSocket.OPEN);
    expect(await raw.call('ping')).toMatchObject({ jsonrpc: '2.0', result: {} });
    await raw.initialize();
    const read = await raw.call('resources/read', { uri: 'alpha+test://alpha/r/0' });
    expect(read.result).toMatchObject({ contents: [{ uri: 'alpha+test://alpha/r/0', text: 'resource 0' }] });
  });

  it('answers a malformed envelope with -32600, and a request the SDK cannot take with -32602, carrying the request id', async () => {
    const { raw } = await openSession();
    raw.ws.send('{"jsonrpc":"2.0","id":5}');
    expect(await raw.response(5)).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32600 } });
    raw.ws.send('{"jsonrpc":"1.0","id":6,"method":"ping"}');
    expect(await raw.response(6)).toMatchObject({ id: 6, error: { code: -32600 } });
    raw.ws.send('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"progressToken":null}}}');
    expect(await raw.response(7)).toMatchObject({ id: 7, error: { code: -32602 } });
    // A batch: each malformed message answered with its own id, the well-formed one served.
    raw.ws.send(
      '[{"jsonrpc":3,"method":"ping"},{"jsonrpc":3,"id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]',
    );
    expect(await raw.response(8)).toMatchObject({ id: 8, error: { code: -32600 } });
    expect(await raw.response(9)).toMatchObject({ id: 9, result: {} });
    expect(await raw.call('ping')).toMatchObject({ result: {} });
  });

  it('closes with 1003 on a binary frame', async () => {
    const { raw } = await openSession();
    raw.ws.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'), { binary: true });
    expect((await raw.closeEvent()).code).toBe(1003);
  });

  it('closes with 1009 on a frame over the 16 MiB default message size', async () => {
    const { gw, raw } = await openSession();
    raw.ws.send('x'.repeat(17 * 1024 * 1024));
    expect((await raw.closeEvent()).code).toBe(1009);
    // The gateway itself is fine.
    const client = await connectWs(gw.wsUrl);
    await expect(client.ping()).resolves.toEqual({});
  });

  it('disconnects a client that stops reading with 1008 instead of buffering without bound', async () => {
    const big = await httpUpstream(cleanup, { name: 'big', resources: 4, payloadBytes: 1_000_000 });
    const gw = await startWsGateway({ big: { url: big.url } });
    const raw = await RawClient.open(gw.wsUrl);
    await raw.initialize();
    const watched = 'test://big/r/0';
    expect(await raw.call('resources/subscribe', { uri: `big+${watched}` })).toMatchObject({ result: {} });
    expect(big.server.stats.subscribed[watched]).toBe(1);

    // Stop reading. The gateway's session ending releases the upstream subscription: that is how the
    // test sees the gateway hang up while the client still reads nothing. Reads are sent in batches
    // until that happens, so the test does not depend on how much the kernel's socket buffers absorb
    // (each batch is only sent after the upstream has served the previous one).
    raw.socket.pause();
    const sessionGone = () => big.server.stats.subscribed[watched] === 0;
    let sent = 0;
    for (let batch = 0; batch < 15 && !sessionGone(); batch++) {
      for (let i = 0; i < 10; i++) raw.request('resources/read', { uri: `big+test://big/r/${i % 4}` });
      sent += 10;
      await eventually(
        () => (big.server.stats.requests['resources/read'] ?? 0) >= sent,
        `${sent} reads upstream`,
      );
      await eventually(sessionGone, 'the gateway to drop the slow client', 250).catch(() => undefined);
    }
    await eventually(sessionGone, 'the gateway to drop the slow client');
    expect(sent).toBeLessThanOrEqual(150);

    // Other clients are unaffected.
    const client = await connectWs(gw.wsUrl);
    await expect(client.ping()).resolves.toEqual({});

    raw.socket.resume();
    expect((await raw.closeEvent()).code).toBe(1008);
  });
});
