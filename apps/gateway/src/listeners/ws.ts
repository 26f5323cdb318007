import { createServer } from 'node:http';
import {
  type ClientDirectory,
  DEFAULT_MAX_MESSAGE_BYTES,
  type Gateway,
  type Logger,
  MCP_WS_SUBPROTOCOL,
  openSession,
  WebSocketSessionTransport,
} from '@switchyard/core';
import { WebSocketServer } from 'ws';
import type { ListenerConfig } from '../config/load.js';
import { listen } from './listen.js';
import { createRequestGuard } from './origin.js';

export interface WsListener {
  url: string;
  port: number;
  sessionCount(): number;
  close(): Promise<void>;
}

export interface WsListenerOptions extends ListenerConfig {
  maxMessageBytes?: number;
  maxBufferedBytes?: number;
  keepAliveMs?: number;
}

/**
 * Serves MCP over WebSocket: one session per connection, subprotocol `mcp` required, Host/Origin
 * checked at the upgrade (a WebSocket is not covered by the browser's same-origin policy).
 */
export async function startWsListener(
  gateway: Gateway,
  config: WsListenerOptions,
  logger: Logger,
  clients: ClientDirectory,
): Promise<WsListener> {
  const log = logger.child('ws');
  const guard = createRequestGuard(config);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    handleProtocols: (protocols) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
  });
  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end(
      `Upgrade Required: connect with a WebSocket (subprotocol "${MCP_WS_SUBPROTOCOL}") to ${config.path}\n`,
    );
  });
  server.on('upgrade', (req, socket, head) => {
    const refuse = (status: number, reason: string, extra = '') => {
      log.warn('upgrade refused', { reason, origin: req.headers.origin, host: req.headers.host });
      socket.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}Connection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== config.path) return refuse(404, 'Not Found');
    const refused = guard(req);
    if (refused) return refuse(403, 'Forbidden');
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    if (!offered.includes(MCP_WS_SUBPROTOCOL)) return refuse(400, 'Bad Request (subprotocol mcp required)');
    const auth = clients.authenticate(req.headers.authorization);
    if (!auth.ok) return refuse(auth.status, 'Unauthorized', `WWW-Authenticate: ${auth.challenge}\r\n`);
    const identity = auth.identity;
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = openSession(gateway, { transport: 'ws', identity });
      const transport = new WebSocketSessionTransport(ws, config);
      transport.onclose = () => void session.close();
      session.connect(transport).catch((error) => {
        log.error('could not start session', { error: String(error) });
        ws.terminate();
      });
    });
  });
  const { port, url } = await listen(server, config, 'ws');
  return {
    url,
    port,
    sessionCount: () => wss.clients.size,
    close: async () => {
      for (const client of wss.clients) client.close(1001, 'gateway shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const client of wss.clients) client.terminate();
    },
  };
}
