import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createUpstreamTransport } from '../src/transports/upstream/create.js';
import { MCP_WS_SUBPROTOCOL } from '../src/transports/websocket.js';
import { CachedToken } from '../src/upstream/auth/cached-token.js';
import { sendAuthorized, type UpstreamCredentials } from '../src/upstream/auth/upstream-auth.js';

// Every remote transport carries the gateway's own token on each HTTP request it makes (Streamable HTTP
// POST/GET/DELETE, SSE GET and POSTs, the WebSocket upgrade) and retries a 401 once with a fresh token.
// The token source counts its fetches: t1, t2, … (the OAuth side is covered end to end in the app).

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

/** Credentials from a counting token source; the upstream under test refuses `t1`. */
function counting() {
  let fetches = 0;
  const token = new CachedToken(async () => ({ accessToken: `t${++fetches}`, expiresIn: 3600 }));
  const credentials: UpstreamCredentials = {
    authorize: (_message, request) => sendAuthorized('up', token, request),
  };
  return { credentials, fetches: () => fetches };
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers each JSON-RPC request with `{ ok: true }` over `reply` once its body is read. */
function answer(req: IncomingMessage, reply: (message: JSONRPCMessage) => void): void {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    const { id } = JSON.parse(body) as { id: number };
    reply({ jsonrpc: '2.0', id, result: { ok: true } } as JSONRPCMessage);
  });
}

/** Refuses `Bearer t1` with 401 and records what each request carried. */
function gate(seen: string[], req: IncomingMessage, res: ServerResponse): boolean {
  const authorization = req.headers.authorization ?? '';
  seen.push(`${req.method} ${authorization}`);
  if (authorization === 'Bearer t1') {
    res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    return false;
  }
  return true;
}

async function roundTrip(transport: Transport): Promise<JSONRPCMessage> {
  closers.push(() => transport.close());
  const answered = new Promise<JSONRPCMessage>((resolve) => {
    transport.onmessage = resolve;
  });
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' } as JSONRPCMessage);
  return answered;
}

describe('upstream credentials on every remote transport', () => {
  it('Streamable HTTP: each POST carries the token; a 401 is retried once with a fresh one', async () => {
    const seen: string[] = [];
    const url = await listen(
      createServer((req, res) => {
        if (!gate(seen, req, res)) return void req.resume();
        answer(req, (message) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message)),
        );
      }),
    );
    const { credentials, fetches } = counting();
    const { transport } = createUpstreamTransport(
      { kind: 'http', url: `${url}/mcp`, headers: {} },
      credentials,
    );
    expect(await roundTrip(transport)).toMatchObject({ id: 1, result: { ok: true } });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' } as JSONRPCMessage);
    expect(seen).toEqual(['POST Bearer t1', 'POST Bearer t2', 'POST Bearer t2']);
    expect(fetches()).toBe(2);
  });

  it('SSE: the event stream and every POST carry the token', async () => {
    const seen: string[] = [];
    let stream: ServerResponse | undefined;
    const url = await listen(
      createServer((req, res) => {
        if (!gate(seen, req, res)) return void req.resume();
        if (req.method === 'GET') {
          stream = res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('event: endpoint\ndata: /messages\n\n');
          return;
        }
        answer(req, (message) => {
          res.writeHead(202).end();
          stream?.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
        });
      }),
    );
    const { credentials, fetches } = counting();
    const { transport } = createUpstreamTransport(
      { kind: 'sse', url: `${url}/sse`, headers: {} },
      credentials,
    );
    expect(await roundTrip(transport)).toMatchObject({ id: 1, result: { ok: true } });
    expect(seen).toEqual(['GET Bearer t1', 'GET Bearer t2', 'POST Bearer t2']);
    expect(fetches()).toBe(2);
  });

  it('WebSocket: the upgrade carries the token; a refused upgrade is retried once with a fresh one', async () => {
    const seen: string[] = [];
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      handleProtocols: (protocols) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
      verifyClient: ({ req }, done) => {
        seen.push(req.headers.authorization ?? '');
        if (req.headers.authorization === 'Bearer t1') done(false, 401, 'Unauthorized');
        else done(true);
      },
    });
    await once(wss, 'listening');
    closers.push(() => new Promise((resolve) => wss.close(() => resolve())));
    wss.on('connection', (socket) =>
      socket.on('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id: number };
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } }));
      }),
    );
    const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`;
    const { credentials, fetches } = counting();
    const { transport } = createUpstreamTransport({ kind: 'ws', url, headers: {} }, credentials);
    expect(await roundTrip(transport)).toMatchObject({ id: 1, result: { ok: true } });
    expect(seen).toEqual(['Bearer t1', 'Bearer t2']);
    expect(fetches()).toBe(2);
  });
});
