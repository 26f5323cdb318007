import { assertSecureTokenEndpoint, selectClientAuthMethod } from '@modelcontextprotocol/client';
import { failureText, oauthErrorCode } from './failure-text.js';
import { withTimeout } from './grant-refresh.js';
import type { StoredGrant, UpstreamOAuthServer } from './types.js';

/** What revoking one token came to (safe to log: never the token). */
export interface RevocationOutcome {
  token: 'refresh_token' | 'access_token';
  /** `revoked` (HTTP 200), `unsupported` (the server does not revoke that kind, e.g. a JWT access token) or why it failed. */
  outcome: string;
}

/**
 * Revokes `grant` at the authorization server that issued it (RFC 7009), when its metadata has a
 * `revocation_endpoint`: the refresh token first (revoking it ends the grant at most servers), then the
 * access token. The client authenticates the way the SDK does at the token endpoint (`client_secret_basic`,
 * `client_secret_post`, or its client id alone for a public client). Never throws: each token's outcome is
 * returned for the log. The SDK has no revocation helper, hence this small form POST.
 */
export async function revokeGrant(
  grant: StoredGrant,
  server: UpstreamOAuthServer,
  options: { timeoutMs: number },
): Promise<RevocationOutcome[]> {
  const endpoint = revocationEndpoint(server);
  // Tokens go only to the server that issued them, as the client they were issued to.
  if (
    endpoint === undefined ||
    grant.issuer !== server.metadata.issuer ||
    grant.clientId !== server.client.client_id
  )
    return [];
  const tokens: RevocationOutcome['token'][] = grant.refreshToken
    ? ['refresh_token', 'access_token']
    : ['access_token'];
  const outcomes: RevocationOutcome[] = [];
  for (const hint of tokens) {
    const token = hint === 'refresh_token' ? grant.refreshToken! : grant.accessToken;
    outcomes.push({
      token: hint,
      outcome: await revokeOne(endpoint, server, token, hint, options.timeoutMs),
    });
  }
  return outcomes;
}

async function revokeOne(
  endpoint: string,
  server: UpstreamOAuthServer,
  token: string,
  hint: string,
  timeoutMs: number,
): Promise<string> {
  try {
    const url = assertSecureTokenEndpoint(endpoint);
    const headers = new Headers({
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    });
    const body = new URLSearchParams({ token, token_type_hint: hint });
    authenticate(server, headers, body);
    const response = await withTimeout(timeoutMs)(url, { method: 'POST', headers, body, redirect: 'error' });
    if (response.ok) {
      await response.body?.cancel();
      return 'revoked';
    }
    const error = await errorCode(response);
    return error === 'unsupported_token_type'
      ? 'unsupported'
      : `it answered HTTP ${response.status}${error ? ` ${error}` : ''}`;
  } catch (error) {
    return failureText(error);
  }
}

/** Client authentication as the SDK applies it at the token endpoint (its `applyClientAuthentication`). */
function authenticate(server: UpstreamOAuthServer, headers: Headers, body: URLSearchParams): void {
  const metadata = server.metadata as { revocation_endpoint_auth_methods_supported?: unknown };
  const supported = Array.isArray(metadata.revocation_endpoint_auth_methods_supported)
    ? metadata.revocation_endpoint_auth_methods_supported.filter((m): m is string => typeof m === 'string')
    : (server.metadata.token_endpoint_auth_methods_supported ?? []);
  const { client_id, client_secret } = server.client;
  switch (selectClientAuthMethod(server.client, supported)) {
    case 'client_secret_basic':
      headers.set('authorization', `Basic ${btoa(`${client_id}:${client_secret ?? ''}`)}`);
      return;
    case 'client_secret_post':
      body.set('client_id', client_id);
      if (client_secret) body.set('client_secret', client_secret);
      return;
    default:
      body.set('client_id', client_id);
  }
}

function revocationEndpoint(server: UpstreamOAuthServer): string | undefined {
  const endpoint = (server.metadata as { revocation_endpoint?: unknown }).revocation_endpoint;
  return typeof endpoint === 'string' && endpoint.length > 0 ? endpoint : undefined;
}

/** The OAuth `error` code of a refusal, if its body says a known one (never the description). */
async function errorCode(response: Response): Promise<string | undefined> {
  try {
    return oauthErrorCode(((await response.json()) as { error?: unknown }).error);
  } catch {
    return undefined;
  }
}
