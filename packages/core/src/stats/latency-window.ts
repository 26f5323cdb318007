import { RingBuffer } from './ring.js';

/** Percentiles over the latest samples (a sliding window: recent latency, not all-time). */
export class LatencyWindow {
  readonly #samples: RingBuffer<number>;

  constructor(capacity = 512) {
    this.#samples = new RingBuffer(capacity);
  }

  record(ms: number): void {
    this.#samples.push(ms);
  }

  /** p50 and p99 in ms (rounded to 0.1 ms), or undefined before the first sample. */
  percentiles(): { p50: number; p99: number } | undefined {
    if (this.#samples.size === 0) return undefined;
    const sorted = this.#samples.toArray().sort((a, b) => a - b);
    const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
    return { p50: at(0.5), p99: at(0.99) };
  }
}

export function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
