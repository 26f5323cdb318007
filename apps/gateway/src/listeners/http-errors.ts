import type { ServerResponse } from 'node:http';
import type { GatewayError, GatewayErrorReason } from '@switchyard/core';
import { errorResponse } from '@switchyard/core/listener';

/** The HTTP status of a refusal, by its reason; errors answered inside a session's exchange are 200. */
const STATUS: Partial<Record<GatewayErrorReason, number>> = {
  busy: 429,
  shutting_down: 503,
  body_too_large: 413,
  too_deep: 400,
  not_found: 404,
  forbidden: 403,
  method_not_allowed: 405,
  not_acceptable: 406,
  parse_error: 400,
  malformed_http: 400,
  unsupported_protocol_version: 400,
  session_required: 400,
  session_not_found: 404,
  initialize_required: 400,
  stream_conflict: 409,
  invalid_last_event_id: 400,
  store_unavailable: 503,
  session_moving: 503,
  replica_failed: 502,
  method_not_found: 404,
  header_mismatch: 400,
  internal: 500,
  missing_token: 401,
  invalid_token: 401,
  unauthorized: 401,
  insufficient_scope: 403,
  issuer_unavailable: 503,
};

/** The HTTP status a listener answers `error` with (DESIGN §10: a status where one exists). */
export function httpStatusOf(error: GatewayError): number {
  if (error.reason === 'too_many_sessions') return error.data?.limit === 'sessionsPerClient' ? 429 : 503;
  // The reason may be an upstream's own (passed through): only this table's own keys have a status.
  const reason = error.reason;
  return (reason !== undefined && Object.hasOwn(STATUS, reason) ? STATUS[reason] : undefined) ?? 200;
}

/**
 * Writes `error` as the HTTP answer: its status (`status`, else the one its reason has), and the JSON-RPC
 * error response (id null unless given). The one writer of every refusal on the HTTP listener.
 */
export function sendError(
  res: ServerResponse,
  error: GatewayError,
  options: {
    id?: string | number | null;
    headers?: Record<string, string>;
    status?: number;
    /** Written but not ended: the caller ends the response (a 413 reads what the client still sends first). */
    leaveOpen?: boolean;
  } = {},
): void {
  const text = JSON.stringify(errorResponse(options.id ?? null, error));
  res.writeHead(options.status ?? httpStatusOf(error), {
    ...options.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  if (options.leaveOpen) res.write(text);
  else res.end(text);
}
