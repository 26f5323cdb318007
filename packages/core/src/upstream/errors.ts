import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import type { CancelSignal } from '../cancellation.js';
import { ErrorCode, GatewayError } from '../errors.js';
import { clipped } from '../stats/clip.js';

/**
 * The most characters of an error's text a log line, an upstream's `lastError` and an `upstream_unavailable`
 * message carry: an upstream chooses it (an `initialize` answered with a 2 MB error message was logged,
 * listed on the status page and sent to every client asking for that upstream, whole).
 */
export const ERROR_TEXT_CHARS = 4096;

/** The message of an error and, when it adds something, its cause's: for logs and error details. */
export function errorText(error: unknown): string {
  return clipped(fullErrorText(error), ERROR_TEXT_CHARS);
}

/** An error's message, at most {@link ERROR_TEXT_CHARS} of it (the status page's `lastError`). */
export function errorMessage(error: unknown): string {
  return clipped(error instanceof Error ? error.message : String(error), ERROR_TEXT_CHARS);
}

function fullErrorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    // A wrapper that already quotes its cause (the SDK's "Version negotiation probe failed: …") says it once.
    return cause instanceof Error && !error.message.includes(cause.message)
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
}

/** Why an upstream is not connected, for an `upstream_unavailable` message. */
export function describeDown(error: unknown): string {
  return error === undefined ? 'not connected yet' : `last error: ${errorText(error)}`;
}

/** SDK errors about one answer (its shape, its kind), not about the connection. */
const INVALID_ANSWER = new Set<string>([
  SdkErrorCode.InvalidResult,
  SdkErrorCode.UnsupportedResultType,
  SdkErrorCode.InputRequiredRoundsExceeded,
  SdkErrorCode.ListPaginationExceeded,
]);

/**
 * What a failed upstream request means to the gateway: the upstream's own JSON-RPC error (kept, with the
 * upstream named), `cancelled`, `upstream_timeout`, `upstream_invalid_result` for an answer that is not a
 * result of its method, `upstream_error` for an HTTP error page, -32603 `internal` for params JSON cannot
 * write (the request never left), or `upstream_unavailable` for a broken connection. Only the last one is
 * the connection's failure (`broken`); everything else costs the one request (DESIGN §11).
 */
export function mapUpstreamError(
  error: unknown,
  call: {
    upstream: string;
    method: string;
    signal: CancelSignal | undefined;
    timeoutMs: number;
    /** What was sent: checked only once the send failed, for what JSON cannot write. */
    params?: unknown;
    /** Called when the error means the connection itself is broken. */
    broken?: (error: unknown) => void;
  },
): GatewayError {
  if (error instanceof GatewayError) return error;
  if (call.signal?.aborted) return GatewayError.aborted(call.method, call.signal.reason);
  if (error instanceof ProtocolError) return GatewayError.fromUnknown(error, call.upstream);
  if (error instanceof SdkHttpError) {
    return GatewayError.upstreamError(
      call.upstream,
      `HTTP ${error.status} ${error.statusText ?? ''}`.trim(),
      {
        status: error.status,
      },
    );
  }
  const unsent = unwritableParams(call.params, call.upstream);
  if (unsent) return unsent;
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return GatewayError.upstreamTimeout(call.upstream, call.method, call.timeoutMs);
    }
    if (error.code === SdkErrorCode.CapabilityNotSupported) {
      return GatewayError.invalidParams(`Upstream '${call.upstream}' does not support ${call.method}.`, {
        upstream: call.upstream,
      });
    }
    if (INVALID_ANSWER.has(error.code)) {
      return GatewayError.upstreamInvalidResult(call.upstream, call.method, invalidDetail(error.message));
    }
    call.broken?.(error);
    return GatewayError.upstreamUnavailable(call.upstream, error.message, error);
  }
  call.broken?.(error);
  return GatewayError.upstreamUnavailable(call.upstream, errorText(error), error);
}

/** The SDK says "Invalid result for tools/call: <why>"; the gateway's message names the method already. */
function invalidDetail(message: string): string {
  const why = message.replace(/^Invalid result for [^:]+:\s*/, '');
  return why.length > 300 ? `${why.slice(0, 300)}…` : why;
}

/**
 * The request's params as JSON failed to serialize (a plugin's hook put a cycle, a BigInt or nesting too
 * deep into them), so the send threw before anything left: that request's own failure, not the
 * connection's (it was taken for a broken one, and a shared upstream went to backoff for every session).
 */
function unwritableParams(params: unknown, upstream: string): GatewayError | undefined {
  try {
    JSON.stringify(params);
    return undefined;
  } catch (error) {
    return new GatewayError(
      ErrorCode.InternalError,
      `Internal gateway error: the request's params cannot be serialized as JSON (${errorText(error)}), so it was not sent to upstream '${upstream}', which stays connected. A plugin's request or upstreamCall hook most likely put a value with a cycle, a BigInt or nesting too deep into them: report it to the plugin's maintainers.`,
      { reason: 'internal', upstream },
    );
  }
}
