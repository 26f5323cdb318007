/**
 * The gateway-vs-direct measuring method shared by `resources/read` (read.ts) and `tools/call`
 * (tools-call.ts): timed request loops (each request timed with hrtime, N workers sharing one client
 * session), direct and gateway rounds interleaved (D G, G D, …) at every concurrency level, and the median
 * round (by req/s) of each path kept, because on a 2-core box the client, the gateway and the upstream share
 * the cores and a single round is noisy.
 */
import { cpuTimeMs, type ManagedProcess } from '@switchyard/testkit/process';
import { type LatencySummary, medianBy, msSince, summarize } from './stats.js';

export type Path = 'direct' | 'gateway';

/** CPU time spent per request (µs, user + system) by each process during the timed part of a round. */
export interface CpuPerRead {
  client: number;
  upstream?: number;
  gateway?: number;
}

/** One path's measured round at one concurrency. */
export interface ReadRun extends LatencySummary {
  path: Path;
  round: number;
  concurrency: number;
  wallMs: number;
  rps: number;
  /** Per request: a read in section 1, a call in section 4a. */
  cpuUsPerRead: CpuPerRead;
}

export interface ReadLevel {
  concurrency: number;
  /** The median round (by req/s) of each path. */
  direct: ReadRun;
  gateway: ReadRun;
  /** gateway req/s ÷ direct req/s. */
  throughputRatio: number;
  addedP50Ms: number;
  addedP99Ms: number;
  rounds: ReadRun[];
}

export interface TimedLoop {
  latencies: Float64Array;
  wallMs: number;
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

/**
 * Samples the CPU time of this process and the children, to split a round's cost between them (no
 * gateway: `gateway` stays undefined in the result).
 */
export function cpuSampler(
  upstream: ManagedProcess,
  gateway: ManagedProcess | undefined,
): () => (requests: number) => CpuPerRead {
  return () => {
    const client = process.cpuUsage();
    const up = cpuTimeMs(upstream.pid);
    const gw = gateway && cpuTimeMs(gateway.pid);
    return (requests) => {
      const c = process.cpuUsage(client);
      const perRequest = (before: number | undefined, after: number | undefined): number | undefined =>
        before === undefined || after === undefined ? undefined : ((after - before) * 1000) / requests;
      return {
        client: (c.user + c.system) / requests,
        upstream: perRequest(up, cpuTimeMs(upstream.pid)),
        gateway: gateway && perRequest(gw, cpuTimeMs(gateway.pid)),
      };
    };
  };
}

export interface RoundsPlan {
  /** Progress label, e.g. `read` or `tools/call`. */
  what: string;
  warmup: number;
  /** Timed requests per round. */
  count: number;
  concurrencies: number[];
  rounds: number;
}

/**
 * Runs the plan: per concurrency, `rounds` rounds of both paths, alternating which goes first; each round is
 * a warm-up loop, then a timed loop with the CPU of every process sampled around it. `loops[path](n, c)`
 * must run (and check) n requests at concurrency c; `afterRound` may check counters and throw.
 */
export async function interleavedRounds(options: {
  plan: RoundsPlan;
  loops: Record<Path, (count: number, concurrency: number) => Promise<TimedLoop>>;
  sampleCpu: () => (requests: number) => CpuPerRead;
  log: (message: string) => void;
  beforeRound?: (path: Path) => Promise<void>;
  afterRound?: (run: ReadRun, issued: number) => Promise<void>;
}): Promise<ReadLevel[]> {
  const { plan, loops, log } = options;
  const levels: ReadLevel[] = [];
  for (const concurrency of plan.concurrencies) {
    const rounds: ReadRun[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      // Alternate which path goes first (ABBA…) so neither always runs on a warmer/cooler box.
      const order: Path[] = round % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct'];
      for (const path of order) {
        await options.beforeRound?.(path);
        await loops[path](plan.warmup, concurrency);
        const cpu = options.sampleCpu();
        const { latencies, wallMs } = await loops[path](plan.count, concurrency);
        const run: ReadRun = {
          path,
          round,
          concurrency,
          wallMs,
          rps: (plan.count / wallMs) * 1000,
          cpuUsPerRead: cpu(plan.count),
          ...summarize(latencies),
        };
        rounds.push(run);
        log(
          `${plan.what} c=${concurrency} round ${round + 1}/${plan.rounds} ${path.padEnd(7)} ` +
            `${run.rps.toFixed(0)} req/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms`,
        );
        await options.afterRound?.(run, plan.warmup + plan.count);
      }
    }
    levels.push(compareMedians(concurrency, rounds));
  }
  return levels;
}

/** The median round of each path at one concurrency, and the gateway's compared with the direct one. */
function compareMedians(concurrency: number, rounds: ReadRun[]): ReadLevel {
  const median = (path: Path): ReadRun =>
    medianBy(
      rounds.filter((r) => r.path === path),
      (r) => r.rps,
    );
  const d = median('direct');
  const g = median('gateway');
  return {
    concurrency,
    direct: d,
    gateway: g,
    throughputRatio: g.rps / d.rps,
    addedP50Ms: g.p50 - d.p50,
    addedP99Ms: g.p99 - d.p99,
    rounds,
  };
}
