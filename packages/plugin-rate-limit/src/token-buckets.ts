import type { ResolvedClientLimits } from './options.js';

/** The verdict on one request: allowed, or refused with how long until a token is back. */
export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (clock ms). */
  at: number;
}

/**
 * One token bucket per identity: capacity `burst`, refilling continuously at `requestsPerSecond`.
 * A request takes one token; an empty bucket refuses and says when the next token arrives.
 *
 * Memory is bounded by `maxClients`: buckets are kept in least-recently-used order, each request
 * drops the least recently used bucket if it has refilled to full (a full bucket is the same as a
 * fresh one, so nothing is lost), and when the map is at `maxClients` a new identity evicts the least
 * recently used bucket outright.
 *
 * @example
 * const buckets = new TokenBuckets({ requestsPerSecond: 2, burst: 4, maxClients: 1000 });
 * const verdict = buckets.take('alice');
 * if (!verdict.ok) console.log(`retry in ${verdict.retryAfterMs} ms`);
 */
export class TokenBuckets {
  readonly #limits: ResolvedClientLimits;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  /** `now` is a monotonic millisecond clock (default `performance.now`); tests pass a fake one. */
  constructor(limits: ResolvedClientLimits, now: () => number = () => performance.now()) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Buckets currently tracked. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one token from `id`'s bucket, if it has one. */
  take(id: string): TakeResult {
    const now = this.#now();
    const tokens = this.#current(id, now);
    this.#dropIdleHead(now);
    const allowed = tokens >= 1;
    const left = allowed ? tokens - 1 : tokens;
    this.#buckets.set(id, { tokens: left, at: now });
    if (allowed) return { ok: true };
    return { ok: false, retryAfterMs: ((1 - left) * 1000) / this.#limits.requestsPerSecond };
  }

  /** Forgets every bucket. */
  clear(): void {
    this.#buckets.clear();
  }

  /** `id`'s tokens now; removes its entry so that re-inserting it marks it most recently used. */
  #current(id: string, now: number): number {
    const bucket = this.#buckets.get(id);
    if (bucket === undefined) {
      while (this.#buckets.size >= this.#limits.maxClients) this.#evictOldest();
      return this.#limits.burst;
    }
    this.#buckets.delete(id);
    return this.#refilled(bucket, now);
  }

  #refilled(bucket: Bucket, now: number): number {
    const earned = (Math.max(0, now - bucket.at) * this.#limits.requestsPerSecond) / 1000;
    return Math.min(this.#limits.burst, bucket.tokens + earned);
  }

  #dropIdleHead(now: number): void {
    const head = this.#buckets.entries().next();
    if (head.done) return;
    const [id, bucket] = head.value;
    if (this.#refilled(bucket, now) >= this.#limits.burst) this.#buckets.delete(id);
  }

  #evictOldest(): void {
    const oldest = this.#buckets.keys().next();
    if (!oldest.done) this.#buckets.delete(oldest.value);
  }
}
