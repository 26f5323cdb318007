import type { Store, StoreCounters } from '@switchyard/core';

/**
 * Bounds the bytes the second level holds in the shared store, with nothing but atomic counters.
 *
 * Time is cut into windows of `windowMs` (the cache's `ttlMs`, which no entry outlives). The bytes
 * written in each window are counted in a counter key of their own (`bytes:<window>`, living two
 * windows). A write is admitted only if the bytes counted in the current and the previous window, its
 * own included, stay within `maxBytes`; otherwise its count is taken back and it is not written. Every
 * entry alive now was written in the current or the previous window, so the bytes alive in the store
 * never exceed the bound. Concurrent writers add before they check, so two of them can never both be
 * admitted past the bound (at worst both back out). Invalidations do not give bytes back (an
 * invalidated entry still occupies the store until its TTL): the bound is conservative.
 *
 * The windows follow each replica's clock: replicas whose clocks disagree by `skew` can together hold
 * up to the bytes admitted over `windowMs + skew`, so keep replica clocks synchronized (NTP).
 */
export class ByteBudget {
  readonly #store: Pick<Store, 'get'>;
  readonly #counters: StoreCounters;
  readonly #maxBytes: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #lastSeen = 0;

  constructor(
    store: Pick<Store, 'get'>,
    counters: StoreCounters,
    maxBytes: number,
    windowMs: number,
    now: () => number = Date.now,
  ) {
    this.#store = store;
    this.#counters = counters;
    this.#maxBytes = maxBytes;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** The bytes of the current and previous window as of this replica's last admission (for stats). */
  get lastSeen(): number {
    return this.#lastSeen;
  }

  /**
   * Reserves `bytes` in the current window; resolves to whether the write may go ahead. Rejects when
   * the store does not answer (the caller then does not write).
   */
  async admit(bytes: number): Promise<boolean> {
    if (bytes > this.#maxBytes) return false;
    const window = Math.floor(this.#now() / this.#windowMs);
    const lifetime = 2 * this.#windowMs;
    const current = `bytes:${window}`;
    const [total, before] = await Promise.all([
      this.#counters.increment(current, bytes, lifetime),
      this.#store.get(`bytes:${window - 1}`),
    ]);
    const previous = Number(before ?? 0) || 0;
    this.#lastSeen = total + previous;
    if (total + previous <= this.#maxBytes) return true;
    await this.#counters.increment(current, -bytes, lifetime).catch(() => {});
    this.#lastSeen -= bytes;
    return false;
  }
}
