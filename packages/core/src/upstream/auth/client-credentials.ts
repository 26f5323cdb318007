import { ClientCredentialsProvider } from '@modelcontextprotocol/client';
import type { UpstreamAuthConfig } from '../../config.js';
import type { AuthorizationServer } from './authorization-server.js';
import { CachedToken } from './cached-token.js';

/**
 * The SDK's client-credentials provider (the secret goes only to the configured issuer: its stored client
 * information carries that issuer, and `fetchToken` refuses any other), plus an `audience` parameter for
 * issuers that name the target that way.
 */
export class GatewayClientProvider extends ClientCredentialsProvider {
  readonly #audience: string | undefined;

  constructor(config: UpstreamAuthConfig) {
    super({
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      clientName: 'switchyard',
      scope: config.scope,
      expectedIssuer: config.issuer,
    });
    this.#audience = config.audience;
  }

  override prepareTokenRequest(scope?: string): URLSearchParams {
    const params = super.prepareTokenRequest(scope);
    if (this.#audience !== undefined) params.set('audience', this.#audience);
    return params;
  }
}

/**
 * The gateway's own token for one upstream (OAuth client credentials): fetched when first needed,
 * reused while valid, fetched again before it expires or after the upstream refuses it.
 */
export function clientCredentialsToken(
  server: AuthorizationServer,
  config: UpstreamAuthConfig,
  now?: () => number,
): CachedToken {
  const provider = new GatewayClientProvider(config);
  return new CachedToken(() => server.token(provider, 'client_credentials', config.resource), now);
}
