import { createHash } from 'node:crypto';
import type { UpstreamAuthConfig } from '../../config.js';
import type { Identity } from '../../context.js';
import type { AuthorizationServer } from './authorization-server.js';
import { CachedToken } from './cached-token.js';
import { GatewayClientProvider } from './client-credentials.js';

const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** Callers whose exchanged tokens are kept; the least recently used beyond it are dropped. */
const MAX_CALLERS = 1_000;

/** An RFC 8693 token-exchange request for one subject token, authenticated as the gateway's client. */
class TokenExchangeProvider extends GatewayClientProvider {
  readonly #subjectToken: string;

  constructor(config: UpstreamAuthConfig, subjectToken: string) {
    super(config);
    this.#subjectToken = subjectToken;
  }

  override prepareTokenRequest(scope?: string): URLSearchParams {
    const params = super.prepareTokenRequest(scope);
    params.set('grant_type', TOKEN_EXCHANGE_GRANT);
    params.set('subject_token', this.#subjectToken);
    params.set('subject_token_type', ACCESS_TOKEN_TYPE);
    params.set('requested_token_type', ACCESS_TOKEN_TYPE);
    return params;
  }
}

/**
 * Tokens on behalf of callers (RFC 8693 token exchange): the caller's own access token (the subject
 * token) exchanged at the issuer for a token meant for this upstream, so the upstream sees who is asking.
 * One cached token per caller and subject token (a caller who signs in again gets a new exchange); the key
 * holds only a digest of the subject token.
 */
export class TokenExchangeGrant {
  readonly #server: AuthorizationServer;
  readonly #config: UpstreamAuthConfig;
  readonly #now: (() => number) | undefined;
  readonly #byCaller = new Map<string, CachedToken>();

  constructor(server: AuthorizationServer, config: UpstreamAuthConfig, now?: () => number) {
    this.#server = server;
    this.#config = config;
    this.#now = now;
  }

  /** The cached token of `caller` presenting `subjectToken` (fetched by its first `get()`). */
  tokenOf(caller: Identity, subjectToken: string): CachedToken {
    const key = `${caller.id}\u0000${createHash('sha256').update(subjectToken).digest('base64url')}`;
    let token = this.#byCaller.get(key);
    if (token === undefined) {
      this.#makeRoom();
      const provider = new TokenExchangeProvider(this.#config, subjectToken);
      token = new CachedToken(
        () => this.#server.token(provider, 'token exchange', this.#config.resource),
        this.#now,
      );
    } else {
      this.#byCaller.delete(key); // re-inserted below: the map's order is least recently used first
    }
    this.#byCaller.set(key, token);
    return token;
  }

  /** Number of callers with a cached token (for tests and status). */
  get size(): number {
    return this.#byCaller.size;
  }

  #makeRoom(): void {
    if (this.#byCaller.size < MAX_CALLERS) return;
    for (const [key, token] of this.#byCaller) if (token.stale) this.#byCaller.delete(key);
    const oldest = this.#byCaller.keys().next();
    if (this.#byCaller.size >= MAX_CALLERS && !oldest.done) this.#byCaller.delete(oldest.value);
  }
}
