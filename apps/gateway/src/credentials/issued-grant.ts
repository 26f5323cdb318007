import type { OAuthTokens } from '@modelcontextprotocol/client';
import type { StoredGrant, UpstreamOAuthServer } from './types.js';

/**
 * The grant to store from a token response of `server` (a code exchange, or a refresh of `previous`):
 * `expires_in` becomes an absolute `expiresAt` counted from `requestedAt` (when the request left, so the
 * gateway never thinks a token lives longer than it does); a refresh that returns no new refresh token or
 * scope keeps the previous ones.
 */
export function grantFromTokens(
  tokens: OAuthTokens,
  server: UpstreamOAuthServer,
  requestedAt: number,
  previous?: StoredGrant,
): StoredGrant {
  const grant: StoredGrant = {
    accessToken: tokens.access_token,
    issuer: server.metadata.issuer,
    clientId: server.client.client_id,
    obtainedAt: requestedAt,
  };
  const refreshToken = tokens.refresh_token ?? previous?.refreshToken;
  if (refreshToken !== undefined) grant.refreshToken = refreshToken;
  if (tokens.expires_in !== undefined && tokens.expires_in > 0)
    grant.expiresAt = requestedAt + tokens.expires_in * 1000;
  const scope = tokens.scope ?? previous?.scope;
  if (scope !== undefined) grant.scope = scope;
  return grant;
}
