import { randomUUID } from 'node:crypto';
import type { Server, Transport } from '@modelcontextprotocol/server';
import type { DownstreamTransportKind, Identity, SessionSink } from '../context.js';
import type { Gateway } from '../gateway.js';
import { DEFAULT_ANONYMOUS_ID } from '../identity.js';
import { LegacyAnswers } from './legacy-answers.js';
import { ModernSessionAnswers } from './modern-session-answers.js';
import { RoutedTransport } from './routed-transport.js';
import { buildServer, type LogLevelHolder } from './server-adapter.js';

export interface SessionOptions {
  transport: DownstreamTransportKind;
  /** Default: a random UUID. */
  id?: string;
  /** Who the session acts as (default: the anonymous identity). */
  identity?: Identity;
  /** The virtual server the session was opened on (DESIGN §13); default: the root endpoint. */
  endpoint?: string;
  /**
   * Where the gateway's notifications for this session go; default: through the session's newest SDK
   * `Server`. Stateless HTTP has no lasting instance and delivers to the SDK handler's event bus.
   */
  deliver?: SessionSink['notify'];
}

/**
 * One downstream session: the gateway knows it (its subscriptions, its notifications) from `openSession`
 * until `close`. Every listener opens sessions this one way, then either `connect`s a transport it owns
 * (a legacy HTTP session, an in-memory pair) or hands `build` to an SDK serving entry that builds
 * instances per era (`serveStdio` for stdio and WebSocket, `createMcpHandler`) and `wrap`s its transport.
 */
export interface DownstreamSession {
  readonly id: string;
  readonly sink: SessionSink;
  /**
   * A new SDK `Server` for this session (the newest one receives its notifications); an SDK serving entry
   * passes the era it will serve, which decides what the server declares (tasks differ by era).
   */
  build(context?: { era?: 'legacy' | 'modern' }): Server;
  /**
   * The transport as the session's SDK servers see it: the requests the gateway answers itself — a legacy
   * session's (`LegacyAnswers`), a 2026-07-28 request's (`ModernSessionAnswers`) — are taken off it first;
   * everything else (the handshake, discovery, listen streams, unknown methods) arrives as sent.
   */
  wrap(transport: Transport): Transport;
  /**
   * Builds a Server and connects it to `transport` (wrapped); a listener that serves one era only (legacy
   * HTTP sessions) says which, and the Server holds only what that era needs.
   */
  connect(transport: Transport, context?: { era?: 'legacy' | 'modern' }): Promise<void>;
  /** Releases the session's subscriptions; call when its transport closes. Idempotent. */
  close(): Promise<void>;
}

const ANONYMOUS: Identity = Object.freeze({
  id: DEFAULT_ANONYMOUS_ID,
  groups: Object.freeze([]),
  anonymous: true,
});

export function openSession(gateway: Gateway, options: SessionOptions): DownstreamSession {
  const id = options.id ?? randomUUID();
  let current: Server | undefined;
  const logging: LogLevelHolder = { level: undefined };
  const sink: SessionSink = {
    id,
    transport: options.transport,
    identity: options.identity ?? ANONYMOUS,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    notify: options.deliver ?? ((method, params) => notifyThrough(current, method, params)),
    logLevel: () => logging.level,
  };
  gateway.openSession(sink);
  let closed = false;
  const build = (context?: { era?: 'legacy' | 'modern' }) => {
    current = buildServer(gateway, sink, logging, context?.era);
    return current;
  };
  const takers = [
    new LegacyAnswers(gateway, sink, logging, () => current),
    new ModernSessionAnswers(gateway, sink, () => current),
  ];
  const wrap = (transport: Transport) => new RoutedTransport(transport, takers);
  return {
    id,
    sink,
    build,
    wrap,
    connect: (transport, context) => build(context).connect(wrap(transport)),
    close: async () => {
      if (closed) return;
      closed = true;
      await gateway.closeSession(id);
    },
  };
}

/** The dedicated senders are what the SDK routes onto modern `subscriptions/listen` streams. */
async function notifyThrough(
  server: Server | undefined,
  method: string,
  params: Record<string, unknown>,
): Promise<void> {
  if (!server) return;
  switch (method) {
    case 'notifications/resources/updated':
      return server.sendResourceUpdated(params as { uri: string });
    case 'notifications/resources/list_changed':
      return server.sendResourceListChanged();
    case 'notifications/tools/list_changed':
      return server.sendToolListChanged();
    case 'notifications/prompts/list_changed':
      return server.sendPromptListChanged();
    default:
      return server.notification({ method, params } as never);
  }
}
