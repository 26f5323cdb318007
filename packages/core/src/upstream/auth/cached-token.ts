/** An access token as an authorization server issued it. */
export interface IssuedToken {
  accessToken: string;
  /** Seconds it is valid for (`expires_in`); undefined when the server did not say. */
  expiresIn?: number;
}

/** Refresh this long before expiry at most (clock skew, a request's time on the wire). */
const MAX_MARGIN_MS = 60_000;
/** A token without `expires_in` is used until the upstream refuses it, or this long. */
const UNSTATED_LIFETIME_MS = 3_600_000;

/**
 * One access token, fetched when first needed, reused while it is valid and fetched again before it
 * expires: once less than a margin of its lifetime is left (half of it, at most a minute), so the
 * upstream never sees an expired token. Concurrent callers share one fetch. A token the upstream refused
 * is dropped, once: callers that were refused the same token share the one fresh fetch that follows.
 */
export class CachedToken {
  readonly #fetch: () => Promise<IssuedToken>;
  readonly #now: () => number;
  #token: string | undefined;
  #refreshAt = 0;
  #pending: Promise<string> | undefined;

  constructor(fetch: () => Promise<IssuedToken>, now: () => number = Date.now) {
    this.#fetch = fetch;
    this.#now = now;
  }

  /** A token valid for a while yet; rejects with the fetch's error when none can be had. */
  get(): Promise<string> {
    if (this.#token !== undefined && this.#now() < this.#refreshAt) return Promise.resolve(this.#token);
    this.#pending ??= this.#refresh().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** The upstream refused `token`: the next get() fetches a new one, unless that already happened. */
  refused(token: string): void {
    if (this.#token === token) this.#token = undefined;
  }

  /** Whether the cached token is past its refresh time (nothing left to reuse). */
  get stale(): boolean {
    return this.#token === undefined || this.#now() >= this.#refreshAt;
  }

  async #refresh(): Promise<string> {
    const fetchedAt = this.#now();
    const issued = await this.#fetch();
    const lifetime =
      issued.expiresIn !== undefined && issued.expiresIn > 0 ? issued.expiresIn * 1000 : UNSTATED_LIFETIME_MS;
    this.#token = issued.accessToken;
    this.#refreshAt = fetchedAt + lifetime - Math.min(MAX_MARGIN_MS, lifetime / 2);
    return issued.accessToken;
  }
}
