import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServerMetadata,
  fetchToken,
  type OAuthClientProvider,
  OAuthError,
} from '@modelcontextprotocol/client';
import { errorText } from '../errors.js';
import type { IssuedToken } from './cached-token.js';
import { credentialsError } from './credentials-error.js';

const MAX_DETAIL_CHARS = 300;

/**
 * The authorization server one upstream's credentials come from, as the SDK's client auth helpers reach
 * it: metadata discovered once (RFC 8414, then OpenID discovery; its `issuer` must echo the configured
 * one), tokens requested with `fetchToken` and the grant a provider prepares, the client authenticated
 * the way the metadata allows (`client_secret_basic` or `client_secret_post`).
 */
export class AuthorizationServer {
  readonly issuer: string;
  readonly #upstream: string;
  #metadata: Promise<AuthorizationServerMetadata> | undefined;

  constructor(upstream: string, issuer: string) {
    this.#upstream = upstream;
    this.issuer = issuer;
  }

  /**
   * A token of the grant `provider` prepares, for `resource` (RFC 8707) when given. Rejects with an
   * `upstream_unavailable` GatewayError naming the issuer, the grant and the issuer's answer.
   */
  async token(provider: OAuthClientProvider, grant: string, resource?: string): Promise<IssuedToken> {
    try {
      const metadata = await this.#discover();
      // The resource goes as configured (a URL object would add a trailing "/" to a bare origin).
      const tokens = await fetchToken(provider, this.issuer, { metadata, resource });
      return { accessToken: tokens.access_token, expiresIn: tokens.expires_in };
    } catch (error) {
      throw credentialsError(
        this.#upstream,
        `the gateway could not get an access token (${grant}) from ${this.issuer}: ${describe(error, await secretsOf(provider, this.issuer))}`,
        'the client id and secret, and whether the issuer allows this grant',
      );
    }
  }

  #discover(): Promise<AuthorizationServerMetadata> {
    if (this.#metadata === undefined) {
      const discovery = discoverAuthorizationServerMetadata(this.issuer).then((metadata) => {
        if (metadata) return metadata;
        throw new Error('it publishes no OAuth or OpenID metadata');
      });
      this.#metadata = discovery;
      // A failed discovery is tried again by the next request.
      discovery.catch(() => {
        if (this.#metadata === discovery) this.#metadata = undefined;
      });
    }
    return this.#metadata;
  }
}

/** A value of the token request shorter than this is a setting (`client_credentials`, a scope), not a secret. */
const MIN_SECRET_CHARS = 6;

/**
 * What `provider` posts that an issuer may quote back: its client secret and the values of its token
 * request (a token exchange's subject token), longest first.
 */
async function secretsOf(provider: OAuthClientProvider, issuer: string): Promise<string[]> {
  const secrets: string[] = [];
  try {
    secrets.push((await provider.clientInformation({ issuer }))?.client_secret ?? '');
    secrets.push(...((await provider.prepareTokenRequest?.())?.values() ?? []));
  } catch {
    // no secrets to read: none to mask
  }
  return [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
}

/**
 * What went wrong, in a line: an OAuth error's code and description, or the cause, with `secrets` masked
 * (an issuer's `error_description` may quote the client secret it was sent: docs/security.md).
 */
function describe(error: unknown, secrets: readonly string[]): string {
  let text = error instanceof OAuthError ? `${error.code}: ${error.message}` : errorText(error);
  for (const secret of secrets) text = text.replaceAll(secret, '***');
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}
