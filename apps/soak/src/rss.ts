/**
 * The gateway's resident set size over the run, sampled once a second from /proc, and the verdict on it:
 * after warm-up it must stay flat. Single samples follow V8's heap sawtooth (tens of MiB between major
 * GCs), so "flat" is judged on medians: the median of the last quarter of the run against the median of
 * the stretch after warm-up (20%–50% of the run), which may grow by at most max(50%, 40 MiB).
 */
import { rssMiB } from '@switchyard/testkit/process';

export const RSS_GROWTH_FRACTION = 0.5;
export const RSS_GROWTH_MIB = 40;

export interface RssFigures {
  /** Sample closest to the end of warm-up (20% of the run). */
  atWarmupMiB: number;
  /** Last sample while traffic still ran. */
  atEndMiB: number;
  /** Highest sample after warm-up. */
  maxAfterWarmupMiB: number;
  /** Median of 20%–50% of the run and of its last quarter: what the verdict compares. */
  warmupMedianMiB: number;
  endMedianMiB: number;
  /** The allowed end median: warm-up median + max(50%, 40 MiB). */
  boundMiB: number;
  samples: number;
}

export class RssSampler {
  readonly samples: { t: number; mib: number }[] = [];
  readonly #pid: number | undefined;
  readonly #start: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(pid: number | undefined, start: number) {
    this.#pid = pid;
    this.#start = start;
  }

  start(): void {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), 1_000);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  get latest(): number | undefined {
    return this.samples.at(-1)?.mib;
  }

  #sample(): void {
    const mib = rssMiB(this.#pid);
    if (mib !== undefined) this.samples.push({ t: Date.now() - this.#start, mib });
  }

  /** The figures for a run of `durationMs`; undefined without samples. */
  figures(durationMs: number): RssFigures | undefined {
    const s = this.samples;
    if (s.length === 0) return undefined;
    const warmupAt = durationMs * 0.2;
    const between = (a: number, b: number) => s.filter((x) => x.t >= a && x.t <= b).map((x) => x.mib);
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : Number.NaN;
    };
    const closest = s.reduce((a, b) => (Math.abs(b.t - warmupAt) < Math.abs(a.t - warmupAt) ? b : a));
    const after = s.filter((x) => x.t >= warmupAt).map((x) => x.mib);
    const warmupMedianMiB = median(between(warmupAt, durationMs * 0.5));
    return {
      atWarmupMiB: closest.mib,
      atEndMiB: s.at(-1)!.mib,
      maxAfterWarmupMiB: after.length ? Math.max(...after) : closest.mib,
      warmupMedianMiB,
      endMedianMiB: median(between(durationMs * 0.75, durationMs)),
      boundMiB: warmupMedianMiB + Math.max(warmupMedianMiB * RSS_GROWTH_FRACTION, RSS_GROWTH_MIB),
      samples: s.length,
    };
  }
}
