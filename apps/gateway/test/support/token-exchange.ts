import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import type Provider from 'oidc-provider';
import { type Configuration, errors } from 'oidc-provider';

// RFC 8693 token exchange for the test issuer (support/issuer.ts): oidc-provider has no such grant, so
// this registers one. Plug it in with startIssuer({ setup: exchange.setup, configure: exchange.configure }).

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface TokenExchangeOptions {
  /** The audience a subject token must carry (the gateway's own resource URL). */
  subjectAudience: string;
  /** Lifetime of an exchanged token (default 300 s). */
  ttlSec?: number;
}

export interface TokenExchangeSupport {
  /** Registers the grant on a provider instance (IssuerOptions.setup). */
  setup(provider: Provider): void;
  /** Adds the `act` claim to exchanged tokens, and their lifetime (IssuerOptions.configure). */
  configure(config: Configuration): Configuration;
  /** Exchanges the issuer has granted so far. */
  readonly exchanges: number;
}

/**
 * A client allowed the grant trades a subject token this issuer signed (for `subjectAudience`) for a JWT
 * access token for the requested `resource`: `sub` is the subject's, `act.sub` names the client that
 * asked (the actor, RFC 8693 §4.1), `aud` is the resource.
 */
export function tokenExchange(options: TokenExchangeOptions): TokenExchangeSupport {
  const actors = new WeakMap<object, { act: { sub: string } }>();
  let exchanges = 0;
  return {
    get exchanges() {
      return exchanges;
    },
    setup(provider) {
      const jwks = createRemoteJWKSet(new URL(`${provider.issuer}/jwks`));
      provider.registerGrantType(
        TOKEN_EXCHANGE_GRANT,
        async (ctx) => {
          const { client, params } = ctx.oidc;
          if (params.subject_token_type !== ACCESS_TOKEN_TYPE)
            throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
          let subject: JWTPayload;
          try {
            ({ payload: subject } = await jwtVerify(String(params.subject_token), jwks, {
              issuer: provider.issuer,
              audience: options.subjectAudience,
            }));
          } catch {
            throw new errors.InvalidGrant('subject_token is not a valid access token of this issuer');
          }
          const resource = typeof params.resource === 'string' ? params.resource : undefined;
          if (resource === undefined) throw new errors.InvalidTarget('name exactly one resource');
          const scope = typeof params.scope === 'string' ? params.scope : undefined;
          const token = new provider.AccessToken({
            accountId: String(subject.sub),
            client,
            scope,
            grantId: '',
            gty: 'token_exchange',
          });
          token.resourceServer = new provider.ResourceServer(resource, {
            scope: scope ?? '',
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: options.ttlSec ?? 300,
          });
          actors.set(token, { act: { sub: client.clientId } });
          exchanges += 1;
          ctx.body = {
            access_token: await token.save(),
            issued_token_type: ACCESS_TOKEN_TYPE,
            token_type: 'Bearer',
            expires_in: token.expiration,
            scope,
          };
        },
        ['subject_token', 'subject_token_type', 'requested_token_type', 'resource', 'audience', 'scope'],
        ['resource', 'audience'],
      );
    },
    configure(config) {
      const base = config.extraTokenClaims;
      return {
        ...config,
        extraTokenClaims: async (ctx, token) => ({ ...(await base?.(ctx, token)), ...actors.get(token) }),
        ttl: { ...config.ttl, AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300 },
      };
    },
  };
}
