import { round } from './latency-window.js';

/** One time bucket of the request series. */
export interface SeriesBucket {
  /** Bucket start, ms since epoch. */
  t: number;
  requests: number;
  errors: number;
  /** Mean and worst latency of the bucket's requests, ms (0 when it has none). */
  latencyAvgMs: number;
  latencyMaxMs: number;
}

interface Slot {
  t: number;
  requests: number;
  errors: number;
  latencySum: number;
  latencyMax: number;
}

/**
 * Request count, error count and latency in fixed time buckets over a sliding window (default 120
 * buckets of 5 s: the last 10 minutes). A ring of slots indexed by bucket number: recording is O(1)
 * and idle time costs nothing (stale slots read as empty).
 */
export class RequestSeries {
  readonly bucketMs: number;
  readonly #slots: Slot[];

  constructor(options: { bucketMs?: number; buckets?: number } = {}) {
    this.bucketMs = options.bucketMs ?? 5_000;
    this.#slots = Array.from({ length: options.buckets ?? 120 }, () => emptySlot(-1));
  }

  record(now: number, ms: number, failed: boolean): void {
    const slot = this.#slot(Math.floor(now / this.bucketMs) * this.bucketMs);
    slot.requests += 1;
    if (failed) slot.errors += 1;
    slot.latencySum += ms;
    if (ms > slot.latencyMax) slot.latencyMax = ms;
  }

  /** Every bucket of the window, oldest first, the current (partial) one last. */
  snapshot(now: number): SeriesBucket[] {
    const n = this.#slots.length;
    const current = Math.floor(now / this.bucketMs) * this.bucketMs;
    const out: SeriesBucket[] = [];
    for (let i = n - 1; i >= 0; i--) {
      const t = current - i * this.bucketMs;
      const slot = this.#slots[this.#index(t)];
      const live = slot !== undefined && slot.t === t;
      const requests = live ? slot.requests : 0;
      out.push({
        t,
        requests,
        errors: live ? slot.errors : 0,
        latencyAvgMs: live && requests > 0 ? round(slot.latencySum / requests) : 0,
        latencyMaxMs: live ? round(slot.latencyMax) : 0,
      });
    }
    return out;
  }

  #index(t: number): number {
    return (t / this.bucketMs) % this.#slots.length;
  }

  #slot(t: number): Slot {
    const i = this.#index(t);
    let slot = this.#slots[i] as Slot;
    if (slot.t !== t) {
      slot = emptySlot(t);
      this.#slots[i] = slot;
    }
    return slot;
  }
}

function emptySlot(t: number): Slot {
  return { t, requests: 0, errors: 0, latencySum: 0, latencyMax: 0 };
}
