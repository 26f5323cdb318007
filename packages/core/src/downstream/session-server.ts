import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import type {
  DownstreamTransportKind,
  Identity,
  ProgressUpdate,
  RequestContext,
  SessionSink,
} from '../context.js';
import { ErrorCode, type GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { DEFAULT_ANONYMOUS_ID } from '../identity.js';
import { CORE_VERSION } from '../version.js';

export const SERVER_INFO = { name: 'switchyard', version: CORE_VERSION } as const;

export interface DownstreamSession {
  readonly id: string;
  readonly server: Server;
  /** Connects the session to its transport (use this rather than `server.connect`). */
  connect(transport: Transport): Promise<void>;
  /** Releases the session's subscriptions; call when its transport closes. */
  close(): Promise<void>;
}

/**
 * The adapter for one downstream session: an SDK `Server` (which owns the handshake, ping, version
 * negotiation and framing) whose resource methods are forwarded, as plain requests, to the era-neutral
 * Gateway. Errors become JSON-RPC errors with the code the session's era expects.
 */
export function createDownstreamSession(
  gateway: Gateway,
  transport: DownstreamTransportKind,
  options: { id?: string; identity?: Identity } = {},
): DownstreamSession {
  let server: Server | undefined;
  const id = options.id ?? randomUUID();
  const session = openSession(gateway, { transport, id, identity: options.identity, current: () => server });
  server = session.build();
  const built = server;
  return {
    id,
    server: built,
    connect: (t) => built.connect(withLegacyNotFound(t, () => built)),
    close: session.close,
  };
}

/**
 * One downstream session whose SDK `Server` instances are built on demand by `build()`: the shape the
 * SDK's own serving entries want (`serveStdio(factory)` builds a probe instance, then the instance it
 * pins for the connection's era). Notifications go to the newest instance, or to `deliver` when given
 * (stateless HTTP has no instance to send through: events go on the SDK handler's bus).
 */
export function openSession(
  gateway: Gateway,
  options: {
    transport: DownstreamTransportKind;
    id: string;
    /** Who the session acts as (default: the anonymous identity). */
    identity?: Identity;
    current: () => Server | undefined;
    deliver?: SessionSink['notify'];
  },
): { sink: SessionSink; build(): Server; close(): Promise<void> } {
  const { transport, id, current, deliver } = options;
  const sink: SessionSink = {
    id,
    transport,
    identity: options.identity ?? ANONYMOUS,
    notify:
      deliver ??
      (async (method, params) => {
        const server = current();
        if (!server) return;
        // The dedicated senders are what the SDK routes onto modern subscriptions/listen streams.
        if (method === 'notifications/resources/updated')
          await server.sendResourceUpdated(params as { uri: string });
        else if (method === 'notifications/resources/list_changed') await server.sendResourceListChanged();
        else await server.notification({ method, params } as never);
      }),
  };
  gateway.openSession(sink);
  let closed = false;
  return {
    sink,
    build: () => buildServer(gateway, sink),
    close: async () => {
      if (closed) return;
      closed = true;
      await gateway.closeSession(id);
    },
  };
}

const ANONYMOUS: Identity = Object.freeze({
  id: DEFAULT_ANONYMOUS_ID,
  groups: Object.freeze([]),
  anonymous: true,
});

/** Methods whose results must carry `ttlMs`/`cacheScope` in the modern era. */
const CACHEABLE = new Set(['resources/list', 'resources/templates/list', 'resources/read']);

function buildServer(gateway: Gateway, sink: SessionSink): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { ...gateway.capabilities(), logging: {} },
    instructions: 'Switchyard gateway: resources from several MCP servers, namespaced as "<server>+<uri>".',
  });
  // Every method the SDK does not answer itself (initialize, discover, ping, logging/setLevel) goes to
  // the gateway raw: no per-method schema parsing on the hot path, and the gateway's own checks give
  // clear -32602s.
  server.fallbackRequestHandler = async (request, ctx) => {
    const params = (request.params ?? {}) as Record<string, unknown>;
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const onProgress =
      progressToken === undefined
        ? undefined
        : (update: ProgressUpdate) => {
            void ctx.mcpReq
              .notify({ method: 'notifications/progress', params: { ...update, progressToken } })
              .catch(() => {});
          };
    const context: RequestContext = {
      method: request.method,
      params,
      session: sink,
      identity: sink.identity,
      signal: ctx.mcpReq.signal,
      onProgress,
      notifyRelated: (m, p) => ctx.mcpReq.notify({ method: m, params: p } as never),
      state: new Map(),
    };
    const outcome = await gateway.handle(context);
    if (!outcome.ok) throw toWireError(outcome.error);
    const version = server.getNegotiatedProtocolVersion();
    if (!isLegacyVersion(version) && CACHEABLE.has(request.method)) {
      // The SDK applies cache hints only to its own handlers: say "immediately stale, private" unless
      // the upstreams said more.
      return { ttlMs: 0, cacheScope: 'private', ...outcome.result } as never;
    }
    return forEra(outcome.result, version) as never;
  };
  return server;
}

/** Fields only the modern era defines; legacy clients never see them. */
const MODERN_ONLY_FIELDS = ['ttlMs', 'cacheScope', 'resultType'] as const;

function forEra(result: Record<string, unknown>, version: string | undefined): Record<string, unknown> {
  if (!isLegacyVersion(version) || !MODERN_ONLY_FIELDS.some((f) => f in result)) return result;
  const legacy = { ...result };
  for (const field of MODERN_ONLY_FIELDS) delete legacy[field];
  return legacy;
}

function toWireError(error: GatewayError): ProtocolError {
  return new ProtocolError(error.code, error.message, error.data);
}

/**
 * Legacy revisions (2024-11-05 … 2025-11-25) specify -32002 for a missing resource; the modern era
 * uses -32602. The SDK emits -32602 on every era, so the legacy adapter restores -32002 on the way
 * out for the gateway's own not-found errors (marked by `data.reason`).
 */
export function withLegacyNotFound(transport: Transport, server: () => Server | undefined): Transport {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) => {
    const error = (message as { error?: { code?: number; data?: { reason?: unknown } } }).error;
    if (
      error?.code === ErrorCode.InvalidParams &&
      error.data?.reason === 'resource_not_found' &&
      isLegacyVersion(server()?.getNegotiatedProtocolVersion())
    ) {
      return send(
        { ...message, error: { ...error, code: ErrorCode.ResourceNotFoundLegacy } } as JSONRPCMessage,
        options,
      );
    }
    return send(message, options);
  };
  return transport;
}

/** Protocol revisions before 2026 use the legacy wire era. */
export function isLegacyVersion(version: string | undefined): boolean {
  return version === undefined || version < '2026-01-01';
}
