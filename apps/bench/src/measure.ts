/**
 * The bench's one measuring method: timed request loops (hrtime per request, N workers sharing a client,
 * every answer checked outside the timing); the variants of a comparison interleaved in the same rounds
 * (rotated or mirrored, so none always runs first), each a warm-up then a timed loop with the CPU of this
 * process and of the variant's processes read around it (/proc); the median round (by req/s) kept.
 */
import type { RequestClient } from '@switchyard/testkit/mcp';
import { cpuTimeMs, type ManagedProcess } from '@switchyard/testkit/process';
import { REQUEST_OPTIONS } from './harness.js';

/** Nearest-rank percentile of an ascending-sorted sample; `p` in [0, 100]. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** Latency statistics (ms) of one loop. */
export function summarize(samples: Float64Array) {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  return {
    count: n,
    mean: n > 0 ? sorted.reduce((sum, v) => sum + v, 0) / n : Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: n > 0 ? sorted[n - 1]! : Number.NaN,
  };
}

/** The item whose `key` is the median (the lower middle for even counts: always an observed value). */
export function medianBy<T>(items: readonly T[], key: (item: T) => number): T {
  if (items.length === 0) throw new Error('medianBy of an empty list');
  return [...items].sort((a, b) => key(a) - key(b))[Math.floor((items.length - 1) / 2)]!;
}

export function median(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : medianBy(values, (v) => v);
}

/** Elapsed milliseconds since `start` (a process.hrtime.bigint() reading). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** CPU time per request (µs, user + system) during a timed loop: this process, and each role's processes. */
export interface CpuPerRead {
  client: number;
  upstream?: number;
  gateway?: number;
  [role: string]: number | undefined;
}

/** The processes a variant's requests cost CPU in, by role (several in one role: summed). */
export type CpuRoles = Record<string, ManagedProcess | readonly ManagedProcess[] | undefined>;

export type TimedLoop = { latencies: Float64Array; wallMs: number };

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

/** One variant of a comparison: how to run (and check) n requests at concurrency c, and whose CPU to read. */
export interface Variant {
  name: string;
  loop(count: number, concurrency: number): Promise<TimedLoop>;
  cpu?: CpuRoles;
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

/** One variant's measured round at one concurrency. */
export type Run = ReturnType<typeof summarize> & {
  path: string;
  round: number;
  concurrency: number;
  wallMs: number;
  rps: number;
  cpuUsPerRead: CpuPerRead;
};

/**
 * A count read around every round of every variant (upstream calls or reads, Redis commands, streamed
 * POSTs): from before the warm-up or, `timed`, from between the warm-up and the timed loop (outside the CPU
 * reading), to once the round is measured. With `perRequest`, a round that did not move it by exactly that
 * many per request issued (warm-up + timed) throws, failing the bench; `totals` adds up every round.
 */
export interface Counter {
  read(variant: Variant): Promise<number> | number;
  timed?: boolean;
  perRequest?: (variant: Variant) => number | undefined;
  /** What it counts, in the error, e.g. `upstream tools/call`. */
  label?: string;
  totals?: { issued: number; served: number };
}

/** The upstream's tools/call count (`served`), held to one per call issued and totalled. */
export function oneCallEach(served: () => Promise<number>) {
  return {
    read: served,
    perRequest: () => 1,
    label: 'upstream tools/call',
    totals: { issued: 0, served: 0 },
  };
}

/**
 * A plan: its levels, rounds and variants, the `counters` read around each round and `after`, given what
 * each moved by and the requests issued, whose answer is added to the run.
 */
export interface RoundsOptions<C extends string, X extends object> {
  /** Progress label, e.g. `read` or `tools/call`. */
  what: string;
  levels: readonly Level[];
  rounds: number;
  /** Default rotate (the same as mirror for two variants). */
  order?: 'rotate' | 'mirror';
  variants: readonly Variant[];
  log: (message: string) => void;
  counters?: Record<C, Counter>;
  after?: (run: Run, moved: Record<C, number>, issued: number) => Promise<X> | X;
  /** Appended to the progress line of a run. */
  note?: (run: Run & X) => string;
}

/** Reads `counters` into `into`, in their order. */
async function readCounters(counters: [string, Counter][], variant: Variant, into: Record<string, number>) {
  for (const [name, counter] of counters) into[name] = await counter.read(variant);
}

/** Runs the plan: per level, `rounds` rounds of every variant in `roundOrder`; returns each level's runs. */
export async function measureRounds<C extends string = never, X extends object = object>(
  options: RoundsOptions<C, X>,
): Promise<(Run & X)[][]> {
  const { log, rounds } = options;
  const counters = Object.entries<Counter>(options.counters ?? ({} as Record<C, Counter>));
  const [fromRound, fromTimed] = [counters.filter(([, c]) => !c.timed), counters.filter(([, c]) => c.timed)];
  const width = Math.max(7, ...options.variants.map((v) => v.name.length));
  const byLevel: (Run & X)[][] = [];
  for (const { concurrency, warmup, count } of options.levels) {
    const runs: (Run & X)[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const variant of roundOrder(options.variants, round, options.order ?? 'rotate')) {
        const start: Record<string, number> = {};
        await readCounters(fromRound, variant, start);
        await variant.loop(warmup, concurrency);
        await readCounters(fromTimed, variant, start);
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
        const issued = warmup + count;
        const moved: Record<string, number> = {};
        await readCounters(counters, variant, moved);
        for (const [name, counter] of counters) {
          moved[name]! -= start[name]!;
          const per = counter.perRequest?.(variant);
          if (counter.totals) {
            counter.totals.issued += issued;
            counter.totals.served += moved[name]!;
          }
          if (per !== undefined && moved[name] !== per * issued) {
            throw new Error(
              `${options.what} ${variant.name} c=${concurrency} round ${round + 1}: ${counter.label ?? name} ` +
                `moved by ${moved[name]} for ${issued} requests issued; expected exactly ${per} each`,
            );
          }
        }
        const run = { ...base, ...((await options.after?.(base, moved, issued)) as X) };
        runs.push(run);
        log(
          `${options.what} c=${concurrency} round ${round + 1}/${rounds} ${variant.name.padEnd(width)} ` +
            `${run.rps.toFixed(0)} req/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms` +
            (options.note?.(run) ?? ''),
        );
      }
    }
    byLevel.push(runs);
  }
  return byLevel;
}

/** `[path, baseline]`: a pair of variants to compare. */
export type Pair = readonly [path: string, baseline: string];

/**
 * One level of compared paths: the median round (by req/s) of each, every round, and each `[path,
 * baseline]` pair that ran compared: the median rounds, and paired round by round (a path's round and its
 * baseline's ran seconds apart, so load that comes and goes cancels): the median req/s ratio and the median
 * gateway CPU per request added (µs; absent where not measured).
 */
export function comparedLevel<R extends Run>(concurrency: number, runs: R[], pairs: readonly Pair[]) {
  const medians: Record<string, R> = {};
  for (const path of new Set(runs.map((r) => r.path))) {
    medians[path] = medianBy(
      runs.filter((r) => r.path === path),
      (r) => r.rps,
    );
  }
  const comparisons = pairs
    .filter(([path, baseline]) => medians[path] && medians[baseline])
    .map(([path, baseline]) => {
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
        throughputRatio: medians[path]!.rps / medians[baseline]!.rps,
        addedP50Ms: medians[path]!.p50 - medians[baseline]!.p50,
        addedP99Ms: medians[path]!.p99 - medians[baseline]!.p99,
        pairedThroughputRatio: median(paired.map(([r, b]) => r.rps / b.rps)),
        addedGatewayCpuUs: cpu.length > 0 && cpu.length === paired.length ? median(cpu) : undefined,
      };
    });
  return { concurrency, medians, comparisons, rounds: runs };
}

export type ComparedLevel<R extends Run = Run> = ReturnType<typeof comparedLevel<R>>;
export type Comparison = ComparedLevel['comparisons'][number];

/** `measureRounds`, then each level's median rounds with the `pairs` compared. */
export async function measureCompared<C extends string = never, X extends object = object>(
  options: RoundsOptions<C, X> & { pairs: readonly Pair[] },
) {
  const byLevel = await measureRounds(options);
  return byLevel.map((runs, i) => comparedLevel(options.levels[i]!.concurrency, runs, options.pairs));
}

/** What a client sends its requests with: the SDK client or one of the testkit's raw clients. */
export type Requester = Pick<RequestClient, 'request'>;

/** What one side addresses: URIs and tool names, and what the echo tool answers as its own name for each. */
export interface Targets {
  uris: string[];
  tools: string[];
  upstreamTools: string[];
}

/**
 * The targets of upstream `name` (testkit resources `test://<name>/r/<i>`, tools `tool_<k>`), directly or
 * through the gateway (URIs `<name>+<uri>`, tools `<name>__tool_<k>`).
 */
export function targetsOf(name: string, resources: number, tools: number, viaGateway: boolean): Targets {
  const ids = (n: number, id: (i: number) => string, exposed: string) =>
    Array.from({ length: n }, (_, i) => (viaGateway ? `${name}${exposed}${id(i)}` : id(i)));
  return {
    uris: ids(resources, (i) => `test://${name}/r/${i}`, '+'),
    tools: ids(tools, (i) => `tool_${i}`, '__'),
    upstreamTools: Array.from({ length: tools }, (_, i) => `tool_${i}`),
  };
}

/** Throws unless `result` is the read of `uri`: one text content of that URI, at least `minChars` long. */
export function checkRead(uri: string, result: Record<string, unknown>, minChars: number): void {
  const contents = result.contents as { uri?: string; text?: string }[] | undefined;
  const content = contents?.[0];
  if (contents?.length !== 1 || content?.uri !== uri || typeof content.text !== 'string') {
    throw new Error(`unexpected resources/read result for ${uri}: ${JSON.stringify(result).slice(0, 300)}`);
  }
  if (content.text.length < minChars) {
    throw new Error(`resources/read ${uri}: ${content.text.length} chars, expected ≥ ${minChars}`);
  }
}

/**
 * Throws unless `result` is the echo tool `tool`'s answer to `args`: `{ tool, arguments }` as
 * `structuredContent` and as its one text content, so a call answered by the wrong tool, with the wrong
 * arguments or for another request (the arguments carry its sequence number) fails.
 */
export function checkCall(
  tool: string,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
): void {
  const expected = JSON.stringify({ tool, arguments: args });
  const content = result.content as { type?: string; text?: string }[] | undefined;
  const ok =
    result.isError !== true &&
    JSON.stringify(result.structuredContent) === expected &&
    content?.length === 1 &&
    content[0]?.type === 'text' &&
    content[0].text === expected;
  if (!ok) {
    throw new Error(
      `tools/call ${tool}: wrong result ${JSON.stringify(result).slice(0, 300)}; ` +
        `expected structuredContent and text ${expected.slice(0, 120)}`,
    );
  }
}

/** A text argument of `bytes` characters. */
export function filler(bytes: number): string {
  return 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes);
}

/** `count` checked reads over `uris` (round-robin, from `first`) with `concurrency` workers sharing `client`. */
export function readLoop(
  client: Requester,
  uris: readonly string[],
  count: number,
  concurrency: number,
  minChars: number,
  first = 0,
): Promise<TimedLoop> {
  const uri = (i: number) => uris[(first + i) % uris.length]!;
  return requestLoop(
    count,
    concurrency,
    (i) => client.request({ method: 'resources/read', params: { uri: uri(i) } }, REQUEST_OPTIONS),
    (i, result) => checkRead(uri(i), result, minChars),
  );
}

/** `count` checked calls over `targets.tools` (round-robin), each with the arguments `{ text, seq: i }`. */
export function callLoop(
  client: Requester,
  targets: Pick<Targets, 'tools' | 'upstreamTools'>,
  text: string,
  count: number,
  concurrency: number,
): Promise<TimedLoop> {
  const { tools, upstreamTools } = targets;
  return requestLoop(
    count,
    concurrency,
    (i) =>
      client.request(
        { method: 'tools/call', params: { name: tools[i % tools.length]!, arguments: { text, seq: i } } },
        REQUEST_OPTIONS,
      ),
    (i, result) => checkCall(upstreamTools[i % tools.length]!, { text, seq: i }, result),
  );
}
