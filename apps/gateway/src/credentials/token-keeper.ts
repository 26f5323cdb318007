import type { OAuthTokens } from '@modelcontextprotocol/client';
import {
  ErrorCode,
  GatewayError,
  type Identity,
  type Logger,
  type PersonalCredentials,
} from '@switchyard/core';
import { credentialOwner } from '@switchyard/core/listener';
import type { ChangeListener } from './change-feed.js';
import { failureText } from './failure-text.js';
import { grantFromTokens } from './issued-grant.js';
import { revokeGrant } from './revocation.js';
import { SingleRefresh } from './single-refresh.js';
import type { StoredGrant, UpstreamOAuthServer, UpstreamOAuthServers } from './types.js';
import type { TokenVault } from './vault.js';

/**
 * Refresh when the access token expires within this long, or within half its lifetime when that is
 * shorter (a token issued for 30 s is not refreshed at every call).
 */
const REFRESH_BEFORE_MS = 60_000;
/** A token refreshed because the upstream refused the previous one, refused again within this long: dropped. */
const REFUSAL_WINDOW_MS = 60_000;
/** One request to an authorization server (refresh, revocation) gives up after this long. */
const REQUEST_TIMEOUT_MS = 8000;
/** How long a replica waits for another one's refresh (or a writer's lock) before giving up. */
const WAIT_MS = 10_000;

export interface TokenKeeperOptions {
  vault: TokenVault;
  /** Each upstream's authorization server and the gateway's client there (discovered and registered elsewhere). */
  servers: UpstreamOAuthServers;
  logger: Logger;
  /** The clock expiry is judged by (tests move it). */
  now?: () => number;
  /** Overrides for tests: how long to wait for a lock or another replica's refresh, and for one request. */
  waitMs?: number;
  requestTimeoutMs?: number;
}

/**
 * The token half of PersonalCredentials (DESIGN §14): each person's access token per upstream, from the
 * vault, refreshed a minute before it expires, refreshed once when the upstream refuses it, dropped when a
 * refresh does not cure that (the person is asked to connect again), revoked on disconnect.
 *
 * One refresh per token however many requests race (SingleRefresh): on one replica, callers share one refresh per
 * (identity, upstream); across replicas, the refresher holds the grant's lock in the store, and a replica
 * that finds it held waits for the grant the holder writes instead of refreshing itself (refresh tokens
 * may rotate: a second refresh would invalidate the first, or the whole grant).
 *
 * Everything is keyed by (owner, upstream), the owner being the identity's kind and id (`credentialOwner`):
 * nothing here returns one identity's token to another, nor to an identity of another kind with the same
 * id. Logs carry the owner, the upstream and the outcome: never a token, a code or a secret.
 */
export class TokenKeeper implements Omit<PersonalCredentials, 'connectUrl'> {
  readonly #vault: TokenVault;
  readonly #servers: UpstreamOAuthServers;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #waitMs: number;
  readonly #requestTimeoutMs: number;
  readonly #refresher: SingleRefresh;

  constructor(options: TokenKeeperOptions) {
    this.#vault = options.vault;
    this.#servers = options.servers;
    this.#log = options.logger;
    this.#now = options.now ?? Date.now;
    this.#waitMs = options.waitMs ?? WAIT_MS;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.#refresher = new SingleRefresh({
      vault: this.#vault,
      servers: this.#servers,
      logger: this.#log,
      now: this.#now,
      waitMs: this.#waitMs,
      requestTimeoutMs: this.#requestTimeoutMs,
    });
  }

  /**
   * `identity`'s access token for `upstream`, refreshed first when it expires within a minute; undefined
   * when there is none (or the refresh was refused: the grant is dropped). When the authorization server
   * cannot be reached the current token is kept while it is valid; after that this rejects with an
   * `upstream_unavailable` GatewayError.
   */
  async token(identity: Identity, upstream: string): Promise<string | undefined> {
    const grant = await this.#vault.get(credentialOwner(identity), upstream);
    if (!grant) return undefined;
    const left = grant.expiresAt === undefined ? Number.POSITIVE_INFINITY : grant.expiresAt - this.#now();
    const lifetime =
      grant.expiresAt === undefined ? Number.POSITIVE_INFINITY : grant.expiresAt - grant.obtainedAt;
    if (left > Math.min(REFRESH_BEFORE_MS, lifetime / 2)) return grant.accessToken;
    // Without a refresh token it is used until it expires (the store drops it then).
    if (grant.refreshToken === undefined) return left > 0 ? grant.accessToken : undefined;
    const refreshed = await this.#refresher.refresh(
      credentialOwner(identity),
      upstream,
      grant.accessToken,
      false,
    );
    if (refreshed.outcome === 'fresh') return refreshed.grant.accessToken;
    if (refreshed.outcome === 'dropped') return undefined;
    if (grant.expiresAt !== undefined && grant.expiresAt > this.#now()) return grant.accessToken;
    throw refreshUnavailable(upstream, refreshed.why);
  }

  /**
   * `upstream` answered HTTP 401 to `token`: resolves to the vault's newer token when someone refreshed
   * meanwhile, else refreshes once and resolves to the new token. Drops the grant and resolves undefined
   * when there is no refresh token, when the refresh is refused, or when `token` itself came from such a
   * refresh a moment ago (a refusal that a refresh does not cure). Rejects (keeping the grant) when the
   * authorization server cannot be reached.
   */
  async refused(identity: Identity, upstream: string, token: string): Promise<string | undefined> {
    const grant = await this.#vault.get(credentialOwner(identity), upstream);
    if (!grant) return undefined;
    if (grant.accessToken !== token) return this.token(identity, upstream);
    const curedBefore = grant.afterRefusal === true && this.#now() - grant.obtainedAt < REFUSAL_WINDOW_MS;
    if (curedBefore || grant.refreshToken === undefined) {
      const why = curedBefore ? 'refused again after a refresh' : 'refused, and it cannot be refreshed';
      await this.#drop(credentialOwner(identity), upstream, token, why);
      return undefined;
    }
    const refreshed = await this.#refresher.refresh(credentialOwner(identity), upstream, token, true);
    if (refreshed.outcome === 'fresh') return refreshed.grant.accessToken;
    if (refreshed.outcome === 'dropped') return undefined;
    throw refreshUnavailable(upstream, refreshed.why);
  }

  /**
   * Forgets `owner`'s grant at `upstream` (every replica hears it), then revokes it at its
   * authorization server (RFC 7009) when that server has a revocation endpoint. A failed revocation is
   * logged and does not undo the disconnect. Resolves to whether there was a grant.
   */
  async disconnect(owner: string, upstream: string): Promise<boolean> {
    const release = await this.#vault.lockGrant(owner, upstream, this.#waitMs);
    let grant: StoredGrant | undefined;
    try {
      grant = await this.#vault.get(owner, upstream);
      await this.#vault.delete(owner, upstream);
    } finally {
      await release?.();
    }
    if (!grant) return false;
    this.#log.info('disconnected a personal credential', { identity: owner, upstream });
    await this.#revoke(owner, upstream, grant);
    return true;
  }

  /**
   * Stores the tokens `server` issued to `owner` for `upstream` (the end of the authorization code
   * flow), replacing any grant it had there; every replica hears it is connected.
   */
  async store(
    owner: string,
    upstream: string,
    tokens: OAuthTokens,
    server: UpstreamOAuthServer,
  ): Promise<void> {
    const grant = grantFromTokens(tokens, server, this.#now());
    const release = await this.#vault.lockGrant(owner, upstream, this.#waitMs);
    try {
      await this.#vault.put(owner, upstream, grant);
    } finally {
      await release?.();
    }
    this.#log.info('connected a personal credential', {
      identity: owner,
      upstream,
      refreshable: grant.refreshToken !== undefined,
    });
  }

  /** Hears (owner, upstream, connected) on every connect and disconnect, on any replica; returns how to stop. */
  onChange(listener: ChangeListener): () => void {
    return this.#vault.onChange(listener);
  }

  /** Deletes the grant if it still holds `seen` (a newer one, stored meanwhile, stays). */
  async #drop(owner: string, upstream: string, seen: string, why: string): Promise<void> {
    const release = await this.#vault.lockGrant(owner, upstream, this.#waitMs);
    try {
      const current = await this.#vault.get(owner, upstream);
      if (current?.accessToken !== seen) return;
      await this.#vault.delete(owner, upstream);
      this.#log.warn('dropped a personal credential', { identity: owner, upstream, why });
    } finally {
      await release?.();
    }
  }

  async #revoke(owner: string, upstream: string, grant: StoredGrant): Promise<void> {
    let server: UpstreamOAuthServer;
    try {
      server = await this.#servers.of(upstream);
    } catch (error) {
      this.#log.warn('could not revoke a disconnected credential', {
        identity: owner,
        upstream,
        why: `its authorization server could not be discovered (${failureText(error)})`,
      });
      return;
    }
    const outcomes = await revokeGrant(grant, server, { timeoutMs: this.#requestTimeoutMs });
    if (outcomes.length === 0)
      this.#log.debug(
        'not revoked: its authorization server has no revocation endpoint (or did not issue it)',
        {
          identity: owner,
          upstream,
        },
      );
    for (const { token, outcome } of outcomes) {
      const fields = { identity: owner, upstream, token, outcome };
      if (outcome === 'revoked' || outcome === 'unsupported') this.#log.info('revocation', fields);
      else this.#log.warn('revocation failed', fields);
    }
  }
}

/** The token expired and its authorization server did not answer the refresh: retry later. */
function refreshUnavailable(upstream: string, why: string): GatewayError {
  return new GatewayError(
    ErrorCode.UpstreamUnavailable,
    `Upstream '${upstream}' is unavailable: your token for it needs a refresh and its authorization server did not give one (${why}). Retry shortly.`,
    { reason: 'upstream_unavailable', upstream },
  );
}
