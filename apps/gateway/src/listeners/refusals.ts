import { GatewayError } from '@switchyard/core';
import { MODERN_VERSIONS, tooDeep } from '@switchyard/core/listener';
import { GatewayReasons as R } from '../reasons.js';
import { SHUTTING_DOWN_MESSAGE } from './drain.js';

/**
 * What a listener refuses before any session or server sees the request, each one `GatewayError` with
 * a stable `data.reason`: created here, written once by the transport's own writer (`sendError` over
 * HTTP with the status `httpStatusOf` gives it, an error response on a session's stream, a WebSocket
 * upgrade answer). Codes and messages are the wire's (DESIGN §9, §10); the app's own reasons carry the
 * code they are registered with (`reasons.ts`).
 */
export const Refusals = {
  busy: (limit: number) => new GatewayError(-32000, busyMessage(limit), { reason: 'busy' }),
  duplicateRequestId: (id: string | number) =>
    R.duplicate_request_id.error(
      `Invalid Request: id ${JSON.stringify(id)} is that of a request of this session still in flight; ` +
        'a request id must be unique among those in flight (JSON-RPC)',
    ),
  shuttingDown: () => R.shutting_down.error(SHUTTING_DOWN_MESSAGE),
  bodyTooLarge: (limit: number) => R.body_too_large.error(bodyTooLargeMessage(limit)),
  /** A body nested deeper than `limits.maxJsonDepth`: 400, -32600 (core's `tooDeep`, as on stdio and WebSocket). */
  tooDeep: (limit: number) => tooDeep(limit),
  /** `limit`: the gateway's (`sessions`, 503) or the client's (`sessionsPerClient`, 429). */
  tooManySessions: (message: string, limit: 'sessions' | 'sessionsPerClient') =>
    R.too_many_sessions.error(message, { limit }),
  /** The 2026-07-28 revision: a method the server does not implement is HTTP 404 with -32601. */
  methodNotFound: (method: string) =>
    R.method_not_found.error(`Method not found: ${method} (protocol revision 2026-07-28).`),
  notFound: (path: string) =>
    new GatewayError(-32600, `Not found: the MCP endpoint is ${path}`, { reason: 'not_found' }),
  forbidden: (detail: string) => new GatewayError(-32600, `Forbidden: ${detail}`, { reason: 'forbidden' }),
  methodNotAllowed: (method: string | undefined) =>
    R.method_not_allowed.error(`Method ${method} not allowed`),
  notAcceptable: (detail: string) => R.not_acceptable.error(`Not Acceptable: ${detail}`),
  parseError: (detail: string) => R.parse_error.error(`Parse error: ${detail}`),
  /** What node's HTTP parser refused (`status` 400, 408 or 431) before the listener saw a request. */
  malformedHttp: (message: string) => R.malformed_http.error(message),
  unsupportedVersion: (version: string | undefined, supported: readonly string[]) =>
    R.unsupported_protocol_version.error(
      MODERN_VERSIONS.includes(version ?? '')
        ? // A 2025-era message (a batch, a body without the revision's claims) under a 2026-07-28 header.
          `Bad Request: MCP-Protocol-Version ${version} is for one ${version} request (no batch), its ` +
            `_meta claiming that revision; this body is a 2025-era message, which takes one of ${supported.join(', ')}`
        : `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${supported.join(', ')})`,
    ),
  sessionRequired: () => R.session_required.error('Bad Request: Mcp-Session-Id header required'),
  sessionNotFound: () => sessionNotFound('initialize a new session'),
  /** A request still in flight when its session was deleted: the session it belongs to is gone. */
  sessionClosed: () => sessionNotFound('the session was closed before this request was answered'),
  /** A request still in flight when the shutdown grace period ran out. */
  shutDown: () =>
    R.shutting_down.error('the gateway shut down before this request was answered: retry it elsewhere'),
  initializeRequired: () =>
    R.initialize_required.error(
      'Bad Request: send initialize first, then the Mcp-Session-Id header on every request',
    ),
  streamConflict: () =>
    R.stream_conflict.error('Conflict: a notification stream is already open for this session'),
  invalidLastEventId: (lastEventId: string) =>
    R.invalid_last_event_id.error(
      `Bad Request: Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 64))} names no stream this session ` +
        'can resume (unknown, finished, or its events were dropped); open the stream again without Last-Event-ID',
    ),
  internal: () => new GatewayError(-32603, 'Internal error', { reason: 'internal' }),
  /** A session's owner failed while a forwarded request of it ran (DESIGN §12): lost, not replayed. */
  replicaFailed: () =>
    R.replica_failed.error(
      'Bad Gateway: the replica serving this session failed during the request; retry it (the session continues)',
    ),
  sessionMoving: () =>
    R.session_moving.error(
      'Service Unavailable: this session is moving to another replica; retry the request',
    ),
} as const;

export function busyMessage(limit: number): string {
  return `Busy: this session already has ${limit} requests in flight (limits.concurrentPerSession); wait for an answer before sending more`;
}

export function bodyTooLargeMessage(limit: number): string {
  return `Request body too large: the limit is ${limit} bytes (limits.maxBodyBytes); send smaller requests`;
}

/** -32001, the SDKs' own code for an unknown session (not the app's to register). */
function sessionNotFound(detail: string): GatewayError {
  return new GatewayError(-32001, `Session not found: ${detail}`, { reason: 'session_not_found' });
}
