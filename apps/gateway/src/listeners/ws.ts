import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type Gateway, type GatewayError, type Logger, openSession } from '@switchyard/core';
import {
  type ClientDirectory,
  errorResponse,
  MCP_WS_SUBPROTOCOL,
  WebSocketSessionTransport,
} from '@switchyard/core/listener';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Authenticator, asAuthenticator } from '../auth/authenticator.js';
import type { ListenerConfig } from '../config/load.js';
import { endpointAt } from './endpoint-path.js';
import { httpStatusOf } from './http-errors.js';
import { answerClientErrors, requestPath } from './http-io.js';
import { type ListenerLimits, listenerLimits } from './http-refusals.js';
import { countRefusal } from './limits.js';
import { listen } from './listen.js';
import { createRequestGuard } from './origin.js';
import { Refusals } from './refusals.js';
import { type ServedChannel, serveChannel } from './serve-channel.js';

export interface WsListener {
  url: string;
  port: number;
  sessionCount(): number;
  /** Closes the connections of virtual servers a reload removed. */
  retainEndpoints(): void;
  close(): Promise<void>;
}

export interface WsListenerOptions extends ListenerConfig {
  maxBufferedBytes?: number;
  keepAliveMs?: number;
}

/**
 * Serves MCP over WebSocket: one session per connection, in whichever era its client opens with
 * (`serveChannel`, as on stdio), subprotocol `mcp` required, Host/Origin checked at the upgrade (a
 * WebSocket is not covered by the browser's same-origin policy).
 */
export async function startWsListener(
  gateway: Gateway,
  config: WsListenerOptions,
  logger: Logger,
  auth: Authenticator | ClientDirectory,
  shared: Partial<ListenerLimits> = {},
): Promise<WsListener> {
  const log = logger.child('ws');
  const authenticator = asAuthenticator(auth);
  const guard = createRequestGuard(config);
  const { limits, quota, drain } = listenerLimits(shared);
  const wss = new WebSocketServer({
    noServer: true,
    // A bigger message closes the connection with 1009 before it is buffered whole.
    maxPayload: limits.maxWsFrameBytes,
    handleProtocols: (protocols) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
  });
  const server = createServer((req, res) => {
    if (authenticator.serveMetadata(req, res, config.path)) return;
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end(
      `Upgrade Required: connect with a WebSocket (subprotocol "${MCP_WS_SUBPROTOCOL}") to ${config.path}\n`,
    );
  });
  /** The open connections of virtual servers, by the virtual server each serves. */
  const byEndpoint = new Map<WebSocket, string>();
  /** Each open connection's session (to answer what it has in flight when the gateway shuts down). */
  const channels = new Map<WebSocket, ServedChannel>();
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, reason: string, extra = '', detail?: string) => {
      log.warn('upgrade refused', { reason, detail, origin: req.headers.origin, host: req.headers.host });
      socket.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}Connection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    // The root endpoint at the path, each virtual server at <path>/<name> (DESIGN §13).
    const pathname = requestPath(req);
    const endpoint =
      pathname === undefined
        ? null
        : endpointAt(pathname, config.path, (name) => gateway.views.get(name) !== undefined);
    if (endpoint === null) return refuse(404, 'Not Found');
    const refused = guard(req);
    if (refused) return refuse(403, 'Forbidden');
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    if (!offered.includes(MCP_WS_SUBPROTOCOL)) return refuse(400, 'Bad Request (subprotocol mcp required)');
    const auth = await authenticator.authenticate(req.headers.authorization);
    if (socket.destroyed) return;
    if (!auth.ok) {
      const headers = Object.entries(auth.headers).map(([name, value]) => `${name}: ${value}\r\n`);
      return refuse(auth.status, STATUS_TEXT[auth.status], headers.join(''), auth.error.message);
    }
    const identity = auth.identity;
    const limited = (error: GatewayError) => {
      const reason = error.reason as 'shutting_down' | 'too_many_sessions';
      const status = httpStatusOf(error);
      countRefusal(reason, 'ws');
      log.warn('upgrade refused', { reason, client: identity.id });
      const body = JSON.stringify(errorResponse(null, error));
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status as keyof typeof STATUS_TEXT]}\r\nContent-Type: application/json\r\n` +
          `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    };
    if (drain.draining) return limited(Refusals.shuttingDown());
    const claim = quota.claim(identity.id);
    if (!claim.ok) return limited(claim.error);
    // Released when the session ends, or when the handshake fails before there is one.
    socket.once('close', claim.release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = openSession(gateway, { transport: 'ws', identity, endpoint });
      if (endpoint !== undefined) byEndpoint.set(ws, endpoint);
      ws.on('error', (error) => {
        if ((error as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
          countRefusal('body_too_large', 'ws');
          log.warn('closing connection: message too large', {
            session: session.id,
            limit: limits.maxWsFrameBytes,
          });
        }
      });
      const options = { ...config, maxJsonDepth: () => limits.maxJsonDepth };
      // A connection lives no longer than the access token it was opened with.
      const expiry = expiryTimer(auth.expiresAt, () => {
        log.info('closing connection: its access token expired', { session: session.id });
        ws.close(1008, 'access token expired: reconnect with a new token');
      });
      const channel = serveChannel(gateway, session, new WebSocketSessionTransport(ws, options), {
        kind: 'ws',
        log,
        gate: { limit: limits.concurrentPerSession, drain },
        onClosed: () => {
          channels.delete(ws);
          byEndpoint.delete(ws);
          clearTimeout(expiry);
          claim.release();
          void session.close();
        },
      });
      channels.set(ws, channel);
    });
  };
  server.on('upgrade', (req, socket, head) => {
    upgrade(req, socket, head).catch((error) => {
      log.error('upgrade failed', { error: error instanceof Error ? error.message : String(error) });
      socket.destroy();
    });
  });
  answerClientErrors(server, (_, message) => errorResponse(null, Refusals.malformedHttp(message)));
  const { port, url } = await listen(server, config, 'ws');
  return {
    url,
    port,
    sessionCount: () => wss.clients.size,
    retainEndpoints: () => {
      for (const [ws, endpoint] of byEndpoint) {
        if (gateway.views.get(endpoint)) continue;
        byEndpoint.delete(ws);
        ws.close(1001, `virtual server ${endpoint} was removed from the config`);
      }
    },
    close: async () => {
      // What is still in flight once the grace period ran out hears why, as an HTTP session's POSTs do.
      await Promise.all([...channels.values()].map((channel) => channel.cutOff(Refusals.shuttingDown())));
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

const STATUS_TEXT = {
  401: 'Unauthorized',
  403: 'Forbidden',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
} as const;

function expiryTimer(expiresAt: number | undefined, onExpiry: () => void): NodeJS.Timeout | undefined {
  if (expiresAt === undefined) return undefined;
  // setTimeout holds at most ~24.8 days; a token that outlives that is not watched.
  const delay = expiresAt - Date.now();
  if (delay > 2 ** 31 - 1) return undefined;
  const timer = setTimeout(onExpiry, Math.max(0, delay));
  timer.unref();
  return timer;
}
