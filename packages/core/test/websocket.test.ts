import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { type ServerOptions, WebSocketServer } from 'ws';
import { WebSocketSessionTransport, WsCloseCode } from '../src/transports/downstream/ws-session-transport.js';
import { WebSocketClientTransport } from '../src/transports/upstream/ws-client-transport.js';
import { MCP_WS_SUBPROTOCOL } from '../src/transports/websocket.js';

// ---- harness ---------------------------------------------------------------------------------------

const cleanup: Array<() => unknown> = [];

afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) {
    try {
      await task();
    } catch {
      // keep cleaning up
    }
  }
});

/** Rejects if `promise` does not settle within `ms` (so a hang fails the test instead of timing it out). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves once `count` events `event` have been emitted by `emitter` (bounded by `ms`). */
function nthEvent(emitter: WebSocket, event: 'ping' | 'message', count: number, ms: number): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      let seen = 0;
      const on = () => {
        seen += 1;
        if (seen >= count) {
          emitter.off(event, on);
          resolve();
        }
      };
      emitter.on(event, on);
    }),
    ms,
    `${count} × ${event}`,
  );
}

interface Listening {
  wss: WebSocketServer;
  url: string;
  /** Server-side sockets, in connection order. */
  sockets: WebSocket[];
}

/** A `ws` server on an ephemeral loopback port; `onConnection` runs for every accepted socket. */
async function wsServer(
  options: ServerOptions = {},
  onConnection: (socket: WebSocket) => void = () => {},
): Promise<Listening> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, ...options });
  await once(wss, 'listening');
  const sockets: WebSocket[] = [];
  wss.on('connection', (socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of wss.clients) s.terminate();
        wss.close(() => resolve());
      }),
  );
  const { port } = wss.address() as AddressInfo;
  return { wss, url: `ws://127.0.0.1:${port}/mcp`, sockets };
}

/** A server that always speaks MCP over WebSocketSessionTransport with the given options. */
function mcpSessionServer(options: ConstructorParameters<typeof WebSocketSessionTransport>[1] = {}) {
  const transports: WebSocketSessionTransport[] = [];
  return {
    transports,
    listen: () =>
      wsServer({ handleProtocols: (p) => (p.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false) }, (s) => {
        const transport = new WebSocketSessionTransport(s, options);
        transports.push(transport);
        void transport.start();
      }),
  };
}

function client(url: string, options: WebSocket.ClientOptions = {}): WebSocket {
  const ws = new WebSocket(url, MCP_WS_SUBPROTOCOL, options);
  cleanup.push(() => ws.terminate());
  return ws;
}

function closeEvent(ws: WebSocket, ms = 5_000): Promise<{ code: number; reason: string }> {
  return within(
    new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    ),
    ms,
    'close event',
  );
}

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function clientTransport(
  url: string,
  options: ConstructorParameters<typeof WebSocketClientTransport>[1] = {},
) {
  const transport = new WebSocketClientTransport(new URL(url), options);
  cleanup.push(() => transport.close());
  return transport;
}

// ---- keepalive on the downstream session transport ---------------------------------------------------

describe('WebSocketSessionTransport keepalive', () => {
  it('terminates a peer that does not answer pings (autoPong: false)', async () => {
    const server = await mcpSessionServer({ keepAliveMs: 50 }).listen();
    const ws = client(server.url, { autoPong: false });
    const pinged = nthEvent(ws, 'ping', 1, 2_000);
    const closed = closeEvent(ws, 2_000);
    await once(ws, 'open');
    await pinged; // the server did ping …
    const { code } = await closed; // … and, with no pong, dropped the connection (terminate: no close frame)
    expect(code).toBe(1006);
    await within(
      (async () => {
        while (server.wss.clients.size > 0) await new Promise((r) => setTimeout(r, 10));
      })(),
      2_000,
      'server to forget the terminated socket',
    );
  });

  it('keeps a peer that answers pings connected over several intervals', async () => {
    const sessions = mcpSessionServer({ keepAliveMs: 50 });
    const server = await sessions.listen();
    const ws = client(server.url);
    let closed = false;
    ws.once('close', () => {
      closed = true;
    });
    const pinged = nthEvent(ws, 'ping', 5, 3_000);
    await once(ws, 'open');
    await pinged; // 5 pings ⇒ at least 4 complete intervals in which a missed pong would have terminated us
    expect(closed).toBe(false);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    expect(server.sockets[0]?.readyState).toBe(WebSocket.OPEN);
    // The connection is still usable: a malformed frame gets its -32700 answer.
    const answered = nthEvent(ws, 'message', 1, 2_000);
    const messages: unknown[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    ws.send('not json');
    await answered;
    expect(messages[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('fires onclose once when the peer closes; a later close() does not fire it again', async () => {
    const sessions = mcpSessionServer({ keepAliveMs: 20 });
    const server = await sessions.listen();
    const ws = client(server.url);
    await once(ws, 'open');
    await nthEvent(ws, 'ping', 1, 2_000);
    let transportClosed = 0;
    const transport = sessions.transports[0]!;
    transport.onclose = () => {
      transportClosed += 1;
    };
    const serverSide = server.sockets[0]!;
    ws.close(1000);
    await once(serverSide, 'close');
    expect(transportClosed).toBe(1);
    await transport.close(); // idempotent: onclose does not fire again
    expect(transportClosed).toBe(1);
  });
});

// ---- slow consumers ------------------------------------------------------------------------------------

describe('WebSocketSessionTransport backpressure', () => {
  it('disconnects a client that does not read with close code 1008', async () => {
    const sessions = mcpSessionServer({ maxBufferedBytes: 64 * 1024, keepAliveMs: 60_000 });
    const server = await sessions.listen();
    const ws = client(server.url);
    await once(ws, 'open');
    (ws as unknown as { _socket: Socket })._socket.pause();
    const closed = closeEvent(ws, 5_000);
    const transport = sessions.transports[0]!;
    const serverSide = server.sockets[0]!;
    const chunk = 'x'.repeat(256 * 1024);
    // Send until the transport gives up on this client (bounded: at most 1 GiB of attempts).
    for (let i = 0; i < 4096 && serverSide.readyState === WebSocket.OPEN; i++) {
      await transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: chunk } });
    }
    expect(serverSide.readyState).not.toBe(WebSocket.OPEN);
    (ws as unknown as { _socket: Socket })._socket.resume();
    const { code } = await closed;
    expect(code).toBe(WsCloseCode.PolicyViolation);
  });
});

// ---- the upstream (client) transport ---------------------------------------------------------------

describe('WebSocketClientTransport', () => {
  it('carries an SDK client session to an MCP server over subprotocol mcp', async () => {
    const upstream = new TestServer({ name: 'sock', resources: 3 });
    cleanup.push(() => upstream.close());
    const server = await wsServer(
      { handleProtocols: (p) => (p.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false) },
      (s) => void upstream.createServer().connect(new WebSocketSessionTransport(s)),
    );
    let authorization: string | undefined;
    server.wss.on('headers', (_headers, req) => {
      authorization = req.headers.authorization;
    });
    const sdk = new Client({ name: 'unit', version: '1.0.0' });
    cleanup.push(() => sdk.close());
    await sdk.connect(clientTransport(server.url, { headers: { authorization: 'Bearer t0k' } }));
    expect(sdk.getServerVersion()?.name).toBe('sock');
    expect(server.sockets[0]?.protocol).toBe(MCP_WS_SUBPROTOCOL);
    expect(authorization).toBe('Bearer t0k');
    const read = await sdk.request({ method: 'resources/read', params: { uri: 'test://sock/r/2' } });
    expect(read.contents[0]).toMatchObject({ uri: 'test://sock/r/2', text: 'resource 2' });
  });

  it('start() rejects with a clear error when the server does not select subprotocol mcp', async () => {
    const server = await wsServer({ handleProtocols: () => false });
    const transport = clientTransport(server.url);
    await expect(within(transport.start(), 1_000, 'start()')).rejects.toThrow(/subprotocol/i);
  });

  it('start() rejects mentioning the status when the upgrade is refused with HTTP 403', async () => {
    const http: HttpServer = createServer((_req, res) => res.writeHead(404).end());
    http.on('upgrade', (_req, socket) => {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const { port } = http.address() as AddressInfo;
    const transport = clientTransport(`ws://127.0.0.1:${port}/mcp`);
    await expect(within(transport.start(), 3_000, 'start()')).rejects.toThrow(/403/);
  });

  it.skipIf(!hasOpenssl())(
    'wss: connects over TLS and verifies the certificate (a self-signed one is refused)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ws-tls-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert].concat([
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
        ]),
        { stdio: 'ignore' },
      );
      let servername: string | undefined;
      const https = createHttpsServer({
        key: readFileSync(key),
        cert: readFileSync(cert),
        SNICallback: (name, callback) => {
          servername = name;
          callback(null, undefined);
        },
      });
      https.on('tlsClientError', () => {});
      await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
      cleanup.push(() => new Promise<void>((resolve) => https.close(() => resolve())));
      const { port } = https.address() as AddressInfo;
      const transport = clientTransport(`wss://localhost:${port}/mcp`);
      await expect(within(transport.start(), 3_000, 'start()')).rejects.toThrow(/self.signed/i);
      expect(servername).toBe('localhost'); // SNI, as ws sends it
    },
  );

  it('start() rejects when nothing listens', async () => {
    const server = await wsServer();
    const url = server.url;
    await new Promise<void>((resolve) => {
      for (const s of server.wss.clients) s.terminate();
      server.wss.close(() => resolve());
    });
    const transport = clientTransport(url);
    await expect(within(transport.start(), 1_000, 'start()')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('fires onclose exactly once when the server closes, and send() after close rejects', async () => {
    const server = await wsServer({ handleProtocols: () => MCP_WS_SUBPROTOCOL });
    const transport = clientTransport(server.url);
    let closes = 0;
    const closed = within(
      new Promise<void>((resolve) => {
        transport.onclose = () => {
          closes += 1;
          resolve();
        };
      }),
      3_000,
      'onclose',
    );
    await transport.start();
    server.sockets[0]!.close(1000, 'bye');
    await closed;
    await transport.close(); // closing an already closed transport does not fire onclose again
    await new Promise((resolve) => setImmediate(resolve));
    expect(closes).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrow(/not open/);
  });

  it('drops an upstream that stops answering pings (keepAliveMs)', async () => {
    const server = await wsServer({ handleProtocols: () => MCP_WS_SUBPROTOCOL, autoPong: false });
    const transport = clientTransport(server.url, { keepAliveMs: 50 });
    const closed = within(
      new Promise<void>((resolve) => {
        transport.onclose = resolve;
      }),
      3_000,
      'onclose after missed pong',
    );
    await transport.start();
    await closed;
  });

  it('drops a message over the limit as it arrives, one frame or several, and stays connected', async () => {
    const server = await wsServer({ handleProtocols: () => MCP_WS_SUBPROTOCOL });
    const transport = clientTransport(server.url);
    const dropped: Array<{ id: unknown; bytes: number; hasMethod?: boolean }> = [];
    transport.faults = {
      oversized: (id, bytes, hasMethod) => dropped.push({ id, bytes, hasMethod }),
      unparsable: () => {},
      failed: () => {},
      maxBytes: () => 1024,
    };
    const messages: unknown[] = [];
    const received = within(
      new Promise<void>((resolve) => {
        transport.onmessage = (message) => {
          messages.push(message);
          resolve();
        };
      }),
      3_000,
      'the message after the oversized ones',
    );
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    const serverSide = server.sockets[0]!;
    // 64 times the limit in one frame: ws alone would close (1009) at twice it.
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: 'y'.repeat(64 * 1024) } });
    serverSide.send(big);
    const fragmented = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'x',
      params: { pad: 'z'.repeat(4096) },
    });
    for (let at = 0; at < fragmented.length; at += 1000) {
      serverSide.send(fragmented.slice(at, at + 1000), { fin: at + 1000 >= fragmented.length });
    }
    serverSide.send(JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} }));
    await received;
    expect(dropped).toEqual([
      { id: 1, bytes: big.length, hasMethod: false },
      { id: 2, bytes: fragmented.length, hasMethod: true },
    ]);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
    expect(closed).toBe(false);
    expect(serverSide.readyState).toBe(WebSocket.OPEN);
  });

  it('closes at once on a frame header declaring ~2^52 bytes, instead of waiting out the keepalive', async () => {
    // Found from outside: the stream swallowed every later byte (pongs too) until the keepalive gave up.
    const server = await wsServer({ handleProtocols: () => MCP_WS_SUBPROTOCOL });
    const transport = clientTransport(server.url, { maxMessageBytes: 1024, keepAliveMs: 60_000 });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    const closed = within(
      new Promise<void>((resolve) => {
        transport.onclose = resolve;
      }),
      3_000,
      'onclose after the unbounded frame',
    );
    await transport.start();
    const header = Buffer.from([0x81, 127, 0, 0x10, 0, 0, 0, 0, 0, 0]); // FIN, text, 2^52 bytes
    (server.sockets[0] as unknown as { _socket: { write(b: Buffer): void } })._socket.write(header);
    await closed;
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/declared a WebSocket message of 4503599627370496 bytes.*connection closed/),
    ]);
  });

  it('without faults, reports a dropped message through onerror; an oversized binary one closes with 1003', async () => {
    const server = await wsServer({ handleProtocols: () => MCP_WS_SUBPROTOCOL });
    const transport = clientTransport(server.url, { maxMessageBytes: 1024 });
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    const serverSide = server.sockets[0]!;
    const code = within(
      new Promise<number>((resolve) => serverSide.once('close', (c) => resolve(c))),
      3_000,
      'server close',
    );
    serverSide.send(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { pad: 'y'.repeat(4096) } }));
    serverSide.send(Buffer.alloc(4096), { binary: true });
    expect(await code).toBe(1003);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/discarded a WebSocket message of \d+ bytes/),
    ]);
  });
});
