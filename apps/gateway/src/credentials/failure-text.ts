import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/client';
import { ResponseTooLarge } from '../capped-response.js';

/**
 * Why a call to an authorization server failed, in words safe to log: the OAuth error code it answered,
 * "timed out", or "unreachable" with the network error's code. Never the error's message or the server's
 * body, which may quote what was sent.
 */
export function failureText(error: unknown): string {
  if (error instanceof OAuthError)
    return `it answered ${oauthErrorCode(error.code) ?? 'an unknown OAuth error'}`;
  // Its message names the bound and the server's origin, nothing of the body.
  if (error instanceof ResponseTooLarge) return error.message;
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'it did not answer in time';
    if (error.name === 'TypeError' && error.message === 'fetch failed') {
      const code = (error.cause as { code?: unknown } | undefined)?.code;
      return `it is unreachable${typeof code === 'string' && /^[A-Z_]{1,40}$/.test(code) ? ` (${code})` : ''}`;
    }
    return `it failed (${error.name})`;
  }
  return 'it failed';
}

/** Whether `error` leaves the grant possibly good: no answer, or an answer saying "try again later". */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof OAuthError)) return true;
  return TRANSIENT_CODES.has(error.code);
}

const TRANSIENT_CODES = new Set<string>(['server_error', 'temporarily_unavailable', 'too_many_requests']);

const KNOWN_CODES = new Set<string>(Object.values(OAuthErrorCode));

/**
 * `code` when it is one of the OAuth error codes the SDK knows, else undefined: a server's `error` field is
 * logged only when it is a known code, never as free text.
 */
export function oauthErrorCode(code: unknown): string | undefined {
  return typeof code === 'string' && KNOWN_CODES.has(code) ? code : undefined;
}
