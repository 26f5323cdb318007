/**
 * The bench's one measuring method, used by every section that compares paths: timed request loops (each
 * request timed with hrtime, N workers sharing one client), the variants of a comparison run in the same
 * rounds, interleaved (rotated or mirrored each round, so none always runs first on a warmer or cooler box),
 * each a warm-up loop then a timed loop with the CPU of this process and of the variant's processes read
 * around it (/proc), and the median round (by req/s) of each variant kept, because on a 2-core box the
 * client, the servers and the middle share the cores and a single round is noisy.
 */
import { cpuTimeMs, type ManagedProcess } from '@switchyard/testkit/process';
import { type LatencySummary, median, medianBy, msSince, summarize } from './stats.js';

/** CPU time spent per request (µs, user + system) during a timed loop: this process, and each role's processes. */
export interface CpuPerRead {
  client: number;
  upstream?: number;
  gateway?: number;
  [role: string]: number | undefined;
}

/** The processes a variant's requests cost CPU in, by role (several in one role: summed). */
export type CpuRoles = Record<string, ManagedProcess | readonly ManagedProcess[] | undefined>;

export interface TimedLoop {
  latencies: Float64Array;
  wallMs: number;
}

/** One variant of a comparison: how to run (and check) n requests at concurrency c, and whose CPU to read. */
export interface Variant {
  name: string;
  loop(count: number, concurrency: number): Promise<TimedLoop>;
  cpu?: CpuRoles;
}

/** One variant's measured round at one concurrency. */
export interface Run extends LatencySummary {
  path: string;
  round: number;
  concurrency: number;
  wallMs: number;
  rps: number;
  cpuUsPerRead: CpuPerRead;
}

/**
 * Issues `count` requests with `concurrency` workers: `send(i)` is timed with hrtime, then `check(i, result)`
 * (outside the timing) throws on a wrong answer, which fails the benchmark.
 */
export async function requestLoop<T>(
  count: number,
  concurrency: number,
  send: (i: number) => Promise<T>,
  check: (i: number, result: T) => void,
): Promise<TimedLoop> {
  const latencies = new Float64Array(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const start = process.hrtime.bigint();
      const result = await send(i);
      latencies[i] = msSince(start);
      check(i, result);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { latencies, wallMs: msSince(start) };
}

/** CPU time (ms) of some processes, summed; undefined when one of them cannot be read. */
function cpuOf(procs: ManagedProcess | readonly ManagedProcess[] | undefined): number | undefined {
  if (procs === undefined) return undefined;
  let total = 0;
  for (const proc of Array.isArray(procs) ? procs : [procs as ManagedProcess]) {
    const ms = cpuTimeMs(proc.pid);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}

/** Samples this process's and every role's CPU; the returned function gives µs per request since. */
export function cpuSampler(roles: CpuRoles = {}): () => (requests: number) => CpuPerRead {
  return () => {
    const client = process.cpuUsage();
    const before = Object.entries(roles).map(([role, procs]) => [role, procs, cpuOf(procs)] as const);
    return (requests) => {
      const c = process.cpuUsage(client);
      const cpu: CpuPerRead = { client: (c.user + c.system) / requests };
      for (const [role, procs, start] of before) {
        const end = cpuOf(procs);
        cpu[role] = start === undefined || end === undefined ? undefined : ((end - start) * 1000) / requests;
      }
      return cpu;
    };
  };
}

/** The variants in round `round`'s order: rotated (A B C, B C A, C A B…) or mirrored (A B C, C B A…). */
export function roundOrder<T>(items: readonly T[], round: number, order: 'rotate' | 'mirror'): T[] {
  if (order === 'mirror') return round % 2 === 0 ? [...items] : [...items].reverse();
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** One concurrency level of a plan: warm-up requests, then `count` timed requests, per round and variant. */
export interface Level {
  concurrency: number;
  warmup: number;
  count: number;
}

/** The same warm-up and count at each concurrency. */
export function atEach(concurrencies: readonly number[], warmup: number, count: number): Level[] {
  return concurrencies.map((concurrency) => ({ concurrency, warmup, count }));
}

export interface RoundsPlan {
  /** Progress label, e.g. `read` or `tools/call`. */
  what: string;
  levels: readonly Level[];
  rounds: number;
  /** Default rotate (the same as mirror for two variants). */
  order?: 'rotate' | 'mirror';
}

/**
 * Runs the plan: per concurrency, `rounds` rounds of every variant in `roundOrder`; each a warm-up loop, then
 * a timed loop with the CPU read around it. `before` runs ahead of a variant's warm-up (`beforeTimed` after
 * it), `after` once its
 * round is measured (given what `before` returned, and the requests issued): it may check counters and
 * throw, and what it returns is added to the run. Returns the runs of each concurrency.
 */
export interface RoundsOptions<S, X extends object, T> {
  plan: RoundsPlan;
  variants: readonly Variant[];
  log: (message: string) => void;
  before?: (variant: Variant, concurrency: number) => Promise<S>;
  /** Runs between the warm-up and the timed loop (outside the CPU reading); its value goes to `after`. */
  beforeTimed?: (variant: Variant) => Promise<T> | T;
  after?: (run: Run, state: S, issued: number, timed: T) => Promise<X> | X;
  /** Appended to the progress line of a run. */
  note?: (run: Run & X) => string;
}

export async function measureRounds<S = undefined, X extends object = object, T = undefined>(
  options: RoundsOptions<S, X, T>,
): Promise<(Run & X)[][]> {
  const { plan, log } = options;
  const width = Math.max(7, ...options.variants.map((v) => v.name.length));
  const byLevel: (Run & X)[][] = [];
  for (const { concurrency, warmup, count } of plan.levels) {
    const runs: (Run & X)[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      for (const variant of roundOrder(options.variants, round, plan.order ?? 'rotate')) {
        const state = (await options.before?.(variant, concurrency)) as S;
        await variant.loop(warmup, concurrency);
        const timed = (await options.beforeTimed?.(variant)) as T;
        const cpu = cpuSampler(variant.cpu)();
        const { latencies, wallMs } = await variant.loop(count, concurrency);
        const cpuUsPerRead = cpu(count);
        const base: Run = {
          path: variant.name,
          round,
          concurrency,
          wallMs,
          rps: (count / wallMs) * 1000,
          cpuUsPerRead,
          ...summarize(latencies),
        };
        const run = {
          ...base,
          ...((await options.after?.(base, state, warmup + count, timed)) as X),
        };
        runs.push(run);
        log(
          `${plan.what} c=${concurrency} round ${round + 1}/${plan.rounds} ${variant.name.padEnd(width)} ` +
            `${run.rps.toFixed(0)} req/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms` +
            (options.note?.(run) ?? ''),
        );
      }
    }
    byLevel.push(runs);
  }
  return byLevel;
}

/** The median round (by req/s) of each variant among `runs`. */
export function mediansOf<R extends { path: string; rps: number }>(runs: readonly R[]): Record<string, R> {
  const medians: Record<string, R> = {};
  for (const path of new Set(runs.map((r) => r.path))) {
    medians[path] = medianBy(
      runs.filter((r) => r.path === path),
      (r) => r.rps,
    );
  }
  return medians;
}

/** `run` compared with `base`: req/s ratio, and the added p50 and p99 (ms). */
export function compared(run: Pick<Run, 'rps' | 'p50' | 'p99'>, base: Pick<Run, 'rps' | 'p50' | 'p99'>) {
  return {
    throughputRatio: run.rps / base.rps,
    addedP50Ms: run.p50 - base.p50,
    addedP99Ms: run.p99 - base.p99,
  };
}

/**
 * A path's median round against its baseline's, and the two paired round by round: a path's round and the
 * baseline's round of the same number ran seconds apart, so the pairs cancel load that comes and goes.
 */
export interface Comparison {
  path: string;
  baseline: string;
  throughputRatio: number;
  addedP50Ms: number;
  addedP99Ms: number;
  /** The median over rounds of (path req/s ÷ baseline req/s in the same round). */
  pairedThroughputRatio: number;
  /** The median over rounds of the gateway CPU per request (µs), path − baseline; absent where not measured. */
  addedGatewayCpuUs?: number;
}

/** One concurrency level of compared paths: the median round (by req/s) of each, the pairs compared, every round. */
export interface ComparedLevel<R extends Run = Run> {
  concurrency: number;
  medians: Record<string, R>;
  comparisons: Comparison[];
  rounds: R[];
}

/** `[path, baseline]`: a pair of variants to compare. */
export type Pair = readonly [path: string, baseline: string];

/** The median round of each path at one level, and each `[path, baseline]` pair compared (when both ran). */
export function comparedLevel<R extends Run>(
  concurrency: number,
  runs: R[],
  pairs: readonly Pair[],
): ComparedLevel<R> {
  const medians = mediansOf(runs);
  const comparisons = pairs
    .filter(([path, baseline]) => medians[path] && medians[baseline])
    .map(([path, baseline]): Comparison => {
      const paired = runs.flatMap((r) => {
        const b = r.path === path && runs.find((x) => x.path === baseline && x.round === r.round);
        return b ? [[r, b] as const] : [];
      });
      const cpu = paired.flatMap(([r, b]) =>
        r.cpuUsPerRead.gateway === undefined || b.cpuUsPerRead.gateway === undefined
          ? []
          : [r.cpuUsPerRead.gateway - b.cpuUsPerRead.gateway],
      );
      return {
        path,
        baseline,
        ...compared(medians[path]!, medians[baseline]!),
        pairedThroughputRatio: median(paired.map(([r, b]) => r.rps / b.rps)),
        addedGatewayCpuUs: cpu.length > 0 && cpu.length === paired.length ? median(cpu) : undefined,
      };
    });
  return { concurrency, medians, comparisons, rounds: runs };
}

/** `measureRounds`, then each concurrency's median rounds with the `pairs` compared. */
export async function measureCompared<S = undefined, X extends object = object, T = undefined>(
  options: RoundsOptions<S, X, T> & { pairs: readonly Pair[] },
): Promise<ComparedLevel<Run & X>[]> {
  const byLevel = await measureRounds(options);
  return byLevel.map((runs, i) => comparedLevel(options.plan.levels[i]!.concurrency, runs, options.pairs));
}
