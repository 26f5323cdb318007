/**
 * Requests to an upstream's authorization side (its MCP URL, metadata, registration and token endpoints):
 * bounded in time, and their failures told without bodies or secrets.
 */
import { type FetchLike, RegistrationRejectedError } from '@modelcontextprotocol/client';
import { capResponse, MAX_OAUTH_DOCUMENT_BYTES, ResponseTooLarge } from '../capped-response.js';

/**
 * `fetchFn` with every request bounded to `timeoutMs` (and the caller's own signal, if any, still
 * honoured), and every answer's body to MAX_OAUTH_DOCUMENT_BYTES: an authorization server that does not
 * answer, or answers megabytes, fails the step (ResponseTooLarge) instead of holding it or the memory.
 */
export function boundedFetch(fetchFn: FetchLike, timeoutMs: number): FetchLike {
  return async (url, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const response = await fetchFn(url, { ...init, signal });
    return capResponse(response, MAX_OAUTH_DOCUMENT_BYTES, `the answer of ${new URL(String(url)).origin}`);
  };
}

/** Whether `error` says the other side did not answer at all (refused, reset, timed out, DNS). */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof TypeError) return true; // fetch failed: the cause is the socket's
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/** A short description of a failure, fit for a log line or an error page: no bodies, no secrets. */
export function describeError(error: unknown): string {
  if (error instanceof RegistrationRejectedError) {
    return `the registration endpoint answered HTTP ${error.status}${oauthErrorCode(error.body)}`;
  }
  if (error instanceof ResponseTooLarge) return error.message;
  const name = (error as { name?: unknown } | undefined)?.name;
  if (name === 'TimeoutError') return 'no answer in time';
  if (error instanceof TypeError) {
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    return `unreachable${typeof code === 'string' ? ` (${code})` : ''}`;
  }
  if (name === 'ZodError') return 'the answer is not a valid document';
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

function oauthErrorCode(body: string): string {
  try {
    const code = (JSON.parse(body) as { error?: unknown }).error;
    return typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? ` (${code})` : '';
  } catch {
    return '';
  }
}
