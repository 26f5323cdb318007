import type { ServerResponse } from 'node:http';
import { type GatewayError, type GatewayErrorReason, registeredErrorReason } from '@switchyard/core';
import { errorResponse } from '@switchyard/core/listener';

/**
 * The HTTP status of a refusal whose reason is core's own (the app's reasons carry theirs where they are
 * registered: `reasons.ts`). Errors answered inside an exchange are 200.
 */
const CORE_STATUS: Partial<Record<GatewayErrorReason, number>> = {
  busy: 429,
  too_deep: 400,
  not_found: 404,
  forbidden: 403,
  session_not_found: 404,
  store_unavailable: 503,
  header_mismatch: 400,
  internal: 500,
};

/** The HTTP status a listener answers `error` with (DESIGN §10: a status where one exists). */
export function httpStatusOf(error: GatewayError): number {
  if (error.reason === 'too_many_sessions') return error.data?.limit === 'sessionsPerClient' ? 429 : 503;
  // The reason may be an upstream's own (passed through): only a reason of the table or the registry has one.
  const reason = error.reason;
  if (reason === undefined) return 200;
  const registered = registeredErrorReason(reason)?.httpStatus;
  return registered ?? (Object.hasOwn(CORE_STATUS, reason) ? CORE_STATUS[reason] : undefined) ?? 200;
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
