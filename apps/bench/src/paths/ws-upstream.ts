#!/usr/bin/env node
/**
 * A testkit upstream over WebSocket for section 6 (the testkit CLI serves stdio and HTTP only): one MCP
 * session per connection (`WebSocketSessionTransport`), one `TestServer`; 2025-11-25 only.
 * usage: node ws-upstream.js --name NAME --resources N --payload-bytes N --tools N; prints `{"url"}`.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { MCP_WS_SUBPROTOCOL, WebSocketSessionTransport } from '@switchyard/core/listener';
import { TestServer } from '@switchyard/testkit';
import { WebSocketServer } from 'ws';

const { values } = parseArgs({
  options: {
    name: { type: 'string', default: 'ws' },
    resources: { type: 'string', default: '100' },
    'payload-bytes': { type: 'string', default: '1024' },
    tools: { type: 'string', default: '0' },
  },
  strict: true,
});

const server = new TestServer({
  name: values.name,
  resources: Number(values.resources),
  payloadBytes: Number(values['payload-bytes']),
  tools: Number(values.tools),
});
const wss = new WebSocketServer({
  host: '127.0.0.1',
  port: 0,
  path: '/mcp',
  handleProtocols: (protocols) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
});
wss.on('connection', (socket) => {
  void server.createServer().connect(new WebSocketSessionTransport(socket));
});
await once(wss, 'listening');
const { port } = wss.address() as AddressInfo;
process.stdout.write(`${JSON.stringify({ url: `ws://127.0.0.1:${port}/mcp` })}\n`);

const stop = (): void => {
  for (const socket of wss.clients) socket.terminate();
  wss.close();
  void server.close().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
