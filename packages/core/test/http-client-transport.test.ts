import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClientTransport } from '../src/transports/upstream/http-client-transport.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * An upstream that answers each socket's first request and, like a server closing an idle keep-alive
 * socket just as the client reuses it, drops the socket on the second one without answering.
 */
async function closingUpstream(): Promise<{ url: URL; sockets: () => number }> {
  let sockets = 0;
  const server = createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { served?: number };
    socket.served = (socket.served ?? 0) + 1;
    if (socket.served > 1) {
      socket.destroy();
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      const text = JSON.stringify({ jsonrpc: '2.0', id, result: { ok: id } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.on('connection', () => {
    sockets += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), sockets: () => sockets };
}

describe('HttpClientTransport', () => {
  it('sends a request once more on a fresh socket when a reused keep-alive socket was closed under it', async () => {
    const upstream = await closingUpstream();
    const transport = new HttpClientTransport(upstream.url);
    const answers: JSONRPCMessage[] = [];
    transport.onmessage = (message) => answers.push(message);
    for (const id of [1, 2, 3]) {
      await transport.send({ jsonrpc: '2.0', id, method: 'ping' } as JSONRPCMessage);
    }
    expect(answers).toEqual([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, result: { ok: id } })));
    expect(upstream.sockets()).toBe(3);
    await transport.close();
  });
});
