import { type FetchLike, OAuthErrorCode, refreshAuthorization } from '@modelcontextprotocol/client';
import { failureText, isTransient } from './failure-text.js';
import { grantFromTokens } from './issued-grant.js';
import { boundedFetch } from './oauth-fetch.js';
import type { StoredGrant, UpstreamOAuthServer } from './types.js';

/** What one refresh came to. `why` is safe to log and to show (no token, no server body). */
export type RefreshResult =
  | { outcome: 'refreshed'; grant: StoredGrant }
  /** The authorization server will not refresh this grant (or must not be asked): drop it. */
  | { outcome: 'rejected'; why: string; invalidClient: boolean }
  /** No usable answer (unreachable, timed out, "try again later"): the grant may still be good. */
  | { outcome: 'unavailable'; why: string };

/**
 * Refreshes `grant` at `server` with the SDK's `refreshAuthorization` (client authenticated as the server's
 * metadata allows, RFC 8707 `resource` sent verbatim, the granted scope kept). The refresh token goes only
 * to the authorization server that issued it, for the client it was issued to: a grant from another issuer
 * or client (the upstream's authorization server or registration changed) is rejected without a request.
 */
export async function refreshGrant(
  grant: StoredGrant & { refreshToken: string },
  server: UpstreamOAuthServer,
  options: { now: () => number; timeoutMs: number },
): Promise<RefreshResult> {
  if (grant.issuer !== server.metadata.issuer)
    return {
      outcome: 'rejected',
      why: 'the upstream now uses another authorization server',
      invalidClient: false,
    };
  if (grant.clientId !== server.client.client_id)
    return { outcome: 'rejected', why: 'the gateway is now another client there', invalidClient: false };
  const requestedAt = options.now();
  try {
    const tokens = await refreshAuthorization(server.authorizationServerUrl, {
      metadata: server.metadata,
      clientInformation: server.client,
      refreshToken: grant.refreshToken,
      resource: server.resource,
      fetchFn: withTimeout(options.timeoutMs),
    });
    return { outcome: 'refreshed', grant: grantFromTokens(tokens, server, requestedAt, grant) };
  } catch (error) {
    const why = failureText(error);
    if (isTransient(error)) return { outcome: 'unavailable', why };
    const code = (error as { code?: unknown }).code;
    const invalidClient = code === OAuthErrorCode.InvalidClient || code === OAuthErrorCode.UnauthorizedClient;
    return { outcome: 'rejected', why, invalidClient };
  }
}

/**
 * `fetch` that gives up after `timeoutMs`, and reads at most MAX_OAUTH_DOCUMENT_BYTES of an answer: an
 * authorization server that hangs or answers megabytes must not hold a request or the gateway's memory.
 */
export function withTimeout(timeoutMs: number): FetchLike {
  return boundedFetch(fetch, timeoutMs);
}
