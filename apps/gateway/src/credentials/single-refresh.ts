import type { Logger } from '@switchyard/core';
import { failureText } from './failure-text.js';
import { refreshGrant } from './grant-refresh.js';
import { sleep } from './store-lock.js';
import type { StoredGrant, UpstreamOAuthServer, UpstreamOAuthServers } from './types.js';
import type { TokenVault } from './vault.js';

/** What a refresh, this replica's or another's, left in the vault. */
export type Refreshed =
  | { outcome: 'fresh'; grant: StoredGrant }
  | { outcome: 'dropped' }
  | { outcome: 'unavailable'; why: string };

export interface SingleRefreshOptions {
  vault: TokenVault;
  servers: UpstreamOAuthServers;
  logger: Logger;
  now: () => number;
  /** How long to wait for another replica's refresh before giving up. */
  waitMs: number;
  /** How long one token request may take. */
  requestTimeoutMs: number;
}

/** Polling another replica's refresh: 20 ms, doubling, at most 250 ms apart. */
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 250;

/**
 * One refresh per grant however many callers race (refresh tokens may rotate: a second refresh with the
 * same refresh token would fail, or make the authorization server revoke the whole grant as a replay).
 * On one replica, callers share one promise per (identity, upstream). Across replicas, the refresher
 * holds the grant's lock in the store; a replica that finds it held polls the vault for the grant the
 * holder writes (bounded backoff, at most `waitMs`) instead of refreshing itself, and takes the lock
 * when it is released with nothing written (the holder's refresh failed).
 */
export class SingleRefresh {
  readonly #options: SingleRefreshOptions;
  /** Refreshes under way on this replica, keyed by JSON [owner, upstream]. */
  readonly #inFlight = new Map<string, Promise<Refreshed>>();

  constructor(options: SingleRefreshOptions) {
    this.#options = options;
  }

  /**
   * Refreshes `owner`'s grant at `upstream`, whose access token was `seen`, unless the vault holds
   * another one by then (someone refreshed, reconnected or disconnected meanwhile: that is the answer).
   * `afterRefusal` marks the new token as obtained because the upstream refused `seen`.
   */
  refresh(owner: string, upstream: string, seen: string, afterRefusal: boolean): Promise<Refreshed> {
    const key = JSON.stringify([owner, upstream]);
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#refreshOnce(owner, upstream, seen, afterRefusal).finally(() => {
        this.#inFlight.delete(key);
      });
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  async #refreshOnce(
    owner: string,
    upstream: string,
    seen: string,
    afterRefusal: boolean,
  ): Promise<Refreshed> {
    const { vault, waitMs } = this.#options;
    const deadline = Date.now() + waitMs;
    for (let poll = FIRST_POLL_MS; ; poll = Math.min(poll * 2, MAX_POLL_MS)) {
      const release = await vault.tryLockGrant(owner, upstream);
      if (release) {
        try {
          return await this.#refreshLocked(owner, upstream, seen, afterRefusal);
        } finally {
          await release();
        }
      }
      const current = await vault.get(owner, upstream);
      if (!current) return { outcome: 'dropped' };
      if (current.accessToken !== seen) return { outcome: 'fresh', grant: current };
      if (Date.now() >= deadline)
        return {
          outcome: 'unavailable',
          why: 'another replica was refreshing it and did not finish in time',
        };
      await sleep(poll);
    }
  }

  async #refreshLocked(
    owner: string,
    upstream: string,
    seen: string,
    afterRefusal: boolean,
  ): Promise<Refreshed> {
    const { vault, servers, logger } = this.#options;
    const current = await vault.get(owner, upstream);
    if (!current) return { outcome: 'dropped' };
    if (current.accessToken !== seen) return { outcome: 'fresh', grant: current };
    if (current.refreshToken === undefined) {
      await vault.delete(owner, upstream);
      return { outcome: 'dropped' };
    }
    const fields = { identity: owner, upstream };
    let server: UpstreamOAuthServer;
    try {
      server = await servers.of(upstream);
    } catch (error) {
      const why = `its authorization server could not be discovered (${failureText(error)})`;
      logger.warn('could not refresh a personal credential', { ...fields, why });
      return { outcome: 'unavailable', why };
    }
    const result = await refreshGrant({ ...current, refreshToken: current.refreshToken }, server, {
      now: this.#options.now,
      timeoutMs: this.#options.requestTimeoutMs,
    });
    if (result.outcome === 'refreshed') {
      const grant = afterRefusal ? { ...result.grant, afterRefusal } : result.grant;
      await vault.put(owner, upstream, grant);
      logger.debug('refreshed a personal credential', { ...fields, afterRefusal });
      return { outcome: 'fresh', grant };
    }
    if (result.outcome === 'rejected') {
      await vault.delete(owner, upstream);
      // The gateway's registration there may be gone: the next connect discovers and registers again.
      // The authorization server no longer knows the gateway's client: register afresh next time.
      if (result.invalidClient) servers.forget(upstream, { dropRegistration: true });
      logger.warn('dropped a personal credential: its refresh was refused', { ...fields, why: result.why });
      return { outcome: 'dropped' };
    }
    logger.warn('could not refresh a personal credential', { ...fields, why: result.why });
    return result;
  }
}
