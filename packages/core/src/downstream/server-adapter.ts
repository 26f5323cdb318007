import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { DownstreamClient, SessionSink } from '../context.js';
import type { Gateway } from '../gateway.js';
import { anyObject } from '../payload.js';
import { CORE_VERSION } from '../version.js';
import { isLegacyVersion, resultForEra } from './era.js';
import { legacyClient } from './legacy-client.js';
import { requestContext } from './request-context.js';
import { serverOptions } from './server-options.js';

export const SERVER_INFO = { name: 'switchyard', version: CORE_VERSION } as const;

/**
 * Methods the 2026-07-28 revision removed from the core and the Tasks extension (SEP-2663) defines again:
 * the SDK dispatches them in that era only to a handler registered with its own params schema. A Server
 * built for the legacy era has no need of them (the fallback handler answers them there, like any other
 * method), and an idle legacy session does not hold them.
 */
const EXTENSION_REUSED_METHODS = ['tasks/get', 'tasks/cancel'] as const;

/** Params the gateway checks itself (as on the fallback path): any object. */
const ANY_PARAMS = anyObject('params');

/**
 * An SDK `Server` for one downstream session: the SDK owns the handshake, discovery, ping, version
 * negotiation and framing. On a legacy session the gateway answers its own methods before the SDK sees
 * them (`LegacyAnswers`); what reaches this server's fallback handler is a modern request (or a legacy
 * `tools/list`, which the SDK's legacy codec encodes), handed to the era-neutral Gateway as a plain
 * request, raw (no per-method schema parsing on the hot path; the gateway's own checks give clear
 * -32602s). A GatewayError leaves as is: its code (the SDK's modern codec writes -32602 for a resource
 * not found, as that era wants), message and data are what the client gets.
 */
export function buildServer(
  gateway: Gateway,
  sink: SessionSink,
  logging: LogLevelHolder,
  era?: 'legacy' | 'modern',
): Server {
  const server = new Server(SERVER_INFO, serverOptions(gateway.capabilities(era)));
  // The level a legacy session sets applies to the upstream log messages relayed to it.
  server.setRequestHandler('logging/setLevel', (request) => {
    logging.level = request.params.level;
    return {};
  });
  const handle = async (
    request: { method: string; params?: Record<string, unknown> },
    ctx: ServerContext,
  ) => {
    const notifyRelated = (m: string, p: Record<string, unknown>) =>
      ctx.mcpReq.notify({ method: m, params: p } as never);
    const era = isLegacyVersion(server.getNegotiatedProtocolVersion()) ? 'legacy' : 'modern';
    const context = requestContext({
      method: request.method,
      params: (request.params ?? {}) as Record<string, unknown>,
      session: sink,
      signal: ctx.mcpReq.signal,
      notifyRelated,
      client: downstreamClient(server, ctx, era === 'legacy', logging.level),
    });
    const outcome = await gateway.handle(context);
    if (!outcome.ok) throw outcome.error;
    return resultForEra(outcome.result, era) as never;
  };
  server.fallbackRequestHandler = handle;
  if (era === 'legacy') return server;
  for (const method of EXTENSION_REUSED_METHODS) {
    server.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) =>
      handle({ method, params }, ctx),
    );
  }
  return server;
}

/** A session's log level, as its client set it with `logging/setLevel` (legacy era). */
export interface LogLevelHolder {
  level: string | undefined;
}

function downstreamClient(
  server: Server,
  ctx: ServerContext,
  legacy: boolean,
  level: string | undefined,
): DownstreamClient {
  if (legacy) return legacyClient(server, ctx.mcpReq.id, level);
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const requestState = ctx.mcpReq.requestState();
  const logLevel = envelope?.[LOG_LEVEL_META_KEY];
  return {
    era: 'modern',
    capabilities:
      (envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined) ??
      server.getClientCapabilities(),
    inputResponses: ctx.mcpReq.inputResponses,
    requestState: typeof requestState === 'string' ? requestState : undefined,
    logLevel: typeof logLevel === 'string' ? logLevel : undefined,
  };
}
