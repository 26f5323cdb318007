import { GatewayError } from '@switchyard/core';
import { tooDeep } from '@switchyard/core/listener';
import '../reasons.js';
import { SHUTTING_DOWN_MESSAGE } from './drain.js';

/**
 * What a listener refuses before any session or server sees the request, each one `GatewayError` with
 * a stable `data.reason`: created here, written once by the transport's own writer (`sendError` over
 * HTTP with the status `httpStatusOf` gives it, an error response on a session's stream, a WebSocket
 * upgrade answer). Codes and messages are the wire's (DESIGN §9, §10).
 */
export const Refusals = {
  busy: (limit: number) => new GatewayError(-32000, busyMessage(limit), { reason: 'busy' }),
  shuttingDown: () => new GatewayError(-32000, SHUTTING_DOWN_MESSAGE, { reason: 'shutting_down' }),
  bodyTooLarge: (limit: number) =>
    new GatewayError(-32000, bodyTooLargeMessage(limit), { reason: 'body_too_large' }),
  /** A body nested deeper than `limits.maxJsonDepth`: 400, -32600 (core's `tooDeep`, as on stdio and WebSocket). */
  tooDeep: (limit: number) => tooDeep(limit),
  /** `limit`: the gateway's (`sessions`, 503) or the client's (`sessionsPerClient`, 429). */
  tooManySessions: (message: string, limit: 'sessions' | 'sessionsPerClient') =>
    new GatewayError(-32000, message, { reason: 'too_many_sessions', limit }),
  /** The 2026-07-28 revision: a method the server does not implement is HTTP 404 with -32601. */
  methodNotFound: (method: string) =>
    new GatewayError(-32601, `Method not found: ${method} (protocol revision 2026-07-28).`, {
      reason: 'method_not_found',
    }),
  notFound: (path: string) =>
    new GatewayError(-32600, `Not found: the MCP endpoint is ${path}`, { reason: 'not_found' }),
  forbidden: (detail: string) => new GatewayError(-32600, `Forbidden: ${detail}`, { reason: 'forbidden' }),
  methodNotAllowed: (method: string | undefined) =>
    new GatewayError(-32600, `Method ${method} not allowed`, { reason: 'method_not_allowed' }),
  notAcceptable: (detail: string) =>
    new GatewayError(-32000, `Not Acceptable: ${detail}`, { reason: 'not_acceptable' }),
  parseError: (detail: string) =>
    new GatewayError(-32700, `Parse error: ${detail}`, { reason: 'parse_error' }),
  /** What node's HTTP parser refused (`status` 400, 408 or 431) before the listener saw a request. */
  malformedHttp: (message: string) => new GatewayError(-32600, message, { reason: 'malformed_http' }),
  unsupportedVersion: (version: string | undefined, supported: readonly string[]) =>
    new GatewayError(
      -32000,
      `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${supported.join(', ')})`,
      { reason: 'unsupported_protocol_version' },
    ),
  sessionRequired: () =>
    new GatewayError(-32000, 'Bad Request: Mcp-Session-Id header required', { reason: 'session_required' }),
  sessionNotFound: () =>
    new GatewayError(-32001, 'Session not found: initialize a new session', { reason: 'session_not_found' }),
  initializeRequired: () =>
    new GatewayError(
      -32000,
      'Bad Request: send initialize first, then the Mcp-Session-Id header on every request',
      {
        reason: 'initialize_required',
      },
    ),
  streamConflict: () =>
    new GatewayError(-32000, 'Conflict: a notification stream is already open for this session', {
      reason: 'stream_conflict',
    }),
  invalidLastEventId: (lastEventId: string) =>
    new GatewayError(
      -32000,
      `Bad Request: Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 64))} names no stream this session ` +
        'can resume (unknown, finished, or its events were dropped); open the stream again without Last-Event-ID',
      { reason: 'invalid_last_event_id' },
    ),
  internal: () => new GatewayError(-32603, 'Internal error', { reason: 'internal' }),
  /** A session's owner failed while a forwarded request of it ran (DESIGN §12): lost, not replayed. */
  replicaFailed: () =>
    new GatewayError(
      -32000,
      'Bad Gateway: the replica serving this session failed during the request; retry it (the session continues)',
      { reason: 'replica_failed' },
    ),
  sessionMoving: () =>
    new GatewayError(
      -32000,
      'Service Unavailable: this session is moving to another replica; retry the request',
      {
        reason: 'session_moving',
      },
    ),
} as const;

export function busyMessage(limit: number): string {
  return `Busy: this session already has ${limit} requests in flight (limits.concurrentPerSession); wait for an answer before sending more`;
}

export function bodyTooLargeMessage(limit: number): string {
  return `Request body too large: the limit is ${limit} bytes (limits.maxBodyBytes); send smaller requests`;
}
