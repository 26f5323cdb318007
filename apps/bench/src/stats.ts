/** Small, dependency-free statistics for latency samples (milliseconds). */

/** Nearest-rank percentile of an ascending-sorted sample; `p` in [0, 100]. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  const index = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[index]!;
}

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(samples: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sorted.length > 0 ? sum / sorted.length : Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

/** Median of plain numbers (lower middle for even counts, so it is always an observed value). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** The item whose `key` is the median (lower middle for even counts). */
export function medianBy<T>(items: readonly T[], key: (item: T) => number): T {
  if (items.length === 0) throw new Error('medianBy of an empty list');
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Elapsed milliseconds since `start` (a process.hrtime.bigint() reading). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}
