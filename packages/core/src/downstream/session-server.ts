import { randomUUID } from 'node:crypto';
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import type { DownstreamTransportKind, ProgressUpdate, RequestContext, SessionSink } from '../context.js';
import { ErrorCode, type GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';

export const SERVER_INFO = { name: 'switchyard', version: '0.1.0' } as const;

/** The request methods the gateway serves downstream (ping and initialize are the SDK's). */
const ROUTED_METHODS = [
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
] as const;

export interface DownstreamSession {
  readonly id: string;
  readonly server: Server;
  /** Releases the session's subscriptions; call when its transport closes. */
  close(): Promise<void>;
}

/**
 * The legacy-era adapter for one downstream session: an SDK `Server` (which owns the handshake, ping,
 * version negotiation and framing) whose resource methods are forwarded, as plain requests, to the
 * era-neutral Gateway. Errors become JSON-RPC errors with the code the session's era expects.
 */
export function createDownstreamSession(
  gateway: Gateway,
  transport: DownstreamTransportKind,
  id: string = randomUUID(),
): DownstreamSession {
  const server = new Server(SERVER_INFO, {
    capabilities: gateway.capabilities(),
    instructions: 'Switchyard gateway: resources from several MCP servers, namespaced as "<server>+<uri>".',
  });
  const sink: SessionSink = {
    id,
    transport,
    notify: (method, params) => server.notification({ method, params } as never),
  };
  gateway.openSession(sink);

  for (const method of ROUTED_METHODS) {
    server.setRequestHandler(method, async (request, ctx) => {
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
        method,
        params,
        session: sink,
        signal: ctx.mcpReq.signal,
        onProgress,
        state: new Map(),
      };
      const outcome = await gateway.handle(context);
      if (outcome.ok) return outcome.result as never;
      throw toWireError(outcome.error);
    });
  }

  let closed = false;
  return {
    id,
    server,
    close: async () => {
      if (closed) return;
      closed = true;
      await gateway.closeSession(id);
    },
  };
}

/** Legacy clients expect -32002 for a missing resource (the modern era uses -32602). */
function toWireError(error: GatewayError): ProtocolError {
  if (error.reason === 'resource_not_found') {
    return new ProtocolError(ErrorCode.ResourceNotFoundLegacy, error.message, error.data);
  }
  return new ProtocolError(error.code, error.message, error.data);
}
