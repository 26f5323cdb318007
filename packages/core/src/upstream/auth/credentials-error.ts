import { ErrorCode, GatewayError } from '../../errors.js';

/**
 * The gateway has no credentials the upstream accepts (its issuer refused the grant, or the upstream
 * refused a fresh token): `upstream_unavailable`, with what to check. Never names a secret or a token.
 */
export function credentialsError(upstream: string, what: string, check: string): GatewayError {
  return new GatewayError(
    ErrorCode.UpstreamUnavailable,
    `Upstream '${upstream}' is unavailable: ${what}. Check ${check} (mcpServers.${upstream}.auth).`,
    { reason: 'upstream_unavailable', upstream },
  );
}
