/**
 * Enumeration benchmark: walking `resources/list` to the end with explicit cursors, each of K upstreams
 * alone (directly) vs all K merged through the gateway (one downstream page = the next page of every
 * upstream, fetched in parallel by the gateway).
 *
 * Two scenarios share this code and differ only in `latencyMs`: CPU-bound upstreams (0 ms: every upstream
 * answers as fast as its CPU allows, so K upstreams on C cores are bounded by their summed CPU), and
 * I/O-bound upstreams (each `resources/list` page answered after a fixed delay, like a remote server), where
 * the design property shows: round trips = the longest upstream's pages, fan-out concurrent.
 */
import { availableParallelism } from 'node:os';
import type { Client } from '@modelcontextprotocol/client';
import { type BenchClient, closeAll, connectClient, REQUEST_OPTIONS, type RunOptions } from './client.js';
import { cpuTimeMs, type Gateway, startGateway, startUpstream, type Upstream } from './procs.js';
import { median, msSince } from './stats.js';

export interface EnumerateConfig {
  upstreams: number;
  resourcesPerUpstream: number;
  pageSize: number;
  /** Delay of every upstream before answering each page (testkit `--latency-ms`); 0 = CPU-bound. */
  latencyMs: number;
  runs: number;
}

export type EnumerateScenario = 'cpu-bound' | 'io-bound';

/** The scenario a config measures: CPU-bound without upstream latency, I/O-bound with it. */
export function scenarioOf(config: EnumerateConfig): EnumerateScenario {
  return config.latencyMs > 0 ? 'io-bound' : 'cpu-bound';
}

/** Human label of a config's scenario (table headings, targets, progress lines). */
export function scenarioLabel(config: EnumerateConfig): string {
  return config.latencyMs > 0
    ? `I/O-bound upstreams (${config.latencyMs} ms per page)`
    : 'CPU-bound upstreams (0 ms latency)';
}

export interface Walk {
  ms: number;
  pages: number;
  uris: string[];
  /** Names listed under `_meta["switchyard/unavailable"]` on any page (gateway only). */
  unavailable: string[];
}

export interface EnumerateRun {
  run: number;
  /** Each upstream enumerated alone, one after the other (ms, index = upstream). */
  directMs: number[];
  slowestDirectMs: number;
  slowestUpstream: string;
  /** Reference: the client walking all K upstreams itself, concurrently (ms). */
  directConcurrentMs: number;
  gatewayMs: number;
  gatewayPages: number;
  /** CPU time (ms, user + system) during the gateway walk: the gateway, all upstreams, this client. */
  gatewayWalkCpuMs: CpuSplit;
  /** CPU time (ms) during the concurrent direct walk of all upstreams: upstreams and this client. */
  directConcurrentCpuMs: CpuSplit;
}

export interface CpuSplit {
  gateway?: number;
  upstreams?: number;
  client: number;
}

/**
 * Lower bounds (and one estimate) of the gateway walk's wall time on this box, whatever the gateway does,
 * to read the ratio against. A ratio target below `cpu.ratio` is out of reach here.
 */
export interface EnumerateFloors {
  /**
   * The upstreams' own summed CPU time during the gateway walk (median over runs) spread over every core:
   * `upstreamsCpuMs ÷ cores` ms, and that ÷ the slowest single upstream's wall time. Ignores the gateway's
   * and the client's CPU, so the real floor is higher. Undefined where /proc is unavailable.
   */
  cpu?: { upstreamsCpuMs: number; cores: number; ms: number; ratio: number };
  /** Sequential round trips × upstream latency: `expectedPages × latencyMs` (ms), and ÷ slowest single. */
  latency: { ms: number; ratio: number };
  /**
   * Estimate (not a strict bound) when upstreams have latency: `latency.ms + cpu.ms`. The fan-out runs in
   * lock step: every round, all K upstreams get their request at once, wait the latency, then build their
   * pages at the same time, so their CPU cannot hide behind the wait. Gateway and client CPU come on top.
   */
  lockStep?: { ms: number; ratio: number };
}

export interface EnumerateResult {
  scenario: EnumerateScenario;
  label: string;
  config: EnumerateConfig;
  expectedTotal: number;
  expectedPages: number;
  /** Median over runs of the slowest single upstream's direct enumeration time. */
  slowestSingleMs: number;
  gatewayMs: number;
  directConcurrentMs: number;
  /** gatewayMs ÷ slowestSingleMs. */
  ratio: number;
  /** gatewayMs ÷ directConcurrentMs. */
  ratioVsConcurrent: number;
  /** Downstream round trips (pages) of one gateway enumeration. */
  gatewayPages: number;
  /** Pages of one direct enumeration of a single upstream. */
  directPages: number;
  /** Per-field medians over runs of the CPU split of the gateway walk and the concurrent direct walk. */
  cpuMs: { gatewayWalk: CpuSplit; directConcurrent: CpuSplit };
  floors: EnumerateFloors;
  runs: EnumerateRun[];
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
}

function medianSplit(splits: CpuSplit[]): CpuSplit {
  const field = (key: keyof CpuSplit): number | undefined => {
    const values = splits.map((s) => s[key]);
    return values.every((v) => v !== undefined) ? median(values as number[]) : undefined;
  };
  return { gateway: field('gateway'), upstreams: field('upstreams'), client: field('client') ?? Number.NaN };
}

/** Walks every page of `resources/list` with explicit cursors (raw requests: no client cache). */
export async function walk(client: Client): Promise<Walk> {
  const uris: string[] = [];
  const unavailable: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  const start = process.hrtime.bigint();
  do {
    const page = await client.request(
      { method: 'resources/list', params: cursor ? { cursor } : {} },
      REQUEST_OPTIONS,
    );
    pages += 1;
    for (const r of page.resources) uris.push(r.uri);
    const missing = page._meta?.['switchyard/unavailable'];
    if (Array.isArray(missing)) unavailable.push(...missing.map(String));
    cursor = page.nextCursor;
    if (pages > 1_000_000) throw new Error('resources/list never ended (more than 1,000,000 pages)');
  } while (cursor);
  return { ms: msSince(start), pages, uris, unavailable };
}

function uniqueCount(uris: readonly string[]): number {
  return new Set(uris).size;
}

/** Throws (loudly, with numbers) unless `w` is exactly one full enumeration of upstream `name`. */
function checkDirect(w: Walk, name: string, config: EnumerateConfig, expectedPages: number): void {
  const unique = uniqueCount(w.uris);
  const prefix = `test://${name}/r/`;
  const foreign = w.uris.filter((u) => !u.startsWith(prefix)).length;
  if (w.uris.length !== config.resourcesPerUpstream || unique !== w.uris.length || foreign > 0) {
    throw new Error(
      `direct enumeration of ${name}: ${w.uris.length} resources (${unique} unique, ${foreign} foreign), ` +
        `expected exactly ${config.resourcesPerUpstream}`,
    );
  }
  if (w.pages !== expectedPages) {
    throw new Error(`direct enumeration of ${name}: ${w.pages} pages, expected ${expectedPages}`);
  }
}

/** Throws unless the merged walk has exactly K×N unique URIs, N per upstream, and nothing unavailable. */
function checkGateway(w: Walk, names: readonly string[], config: EnumerateConfig): void {
  const expected = names.length * config.resourcesPerUpstream;
  const unique = uniqueCount(w.uris);
  const perUpstream = new Map<string, number>(names.map((n) => [n, 0]));
  let foreign = 0;
  for (const uri of w.uris) {
    const plus = uri.indexOf('+');
    const server = uri.slice(0, plus);
    const count = perUpstream.get(server);
    if (plus <= 0 || count === undefined || !uri.startsWith(`${server}+test://${server}/r/`)) foreign += 1;
    else perUpstream.set(server, count + 1);
  }
  const short = [...perUpstream].filter(([, n]) => n !== config.resourcesPerUpstream);
  const problems: string[] = [];
  if (w.uris.length !== expected) problems.push(`${w.uris.length} resources, expected exactly ${expected}`);
  if (unique !== w.uris.length) problems.push(`${w.uris.length - unique} duplicate URIs`);
  if (foreign > 0) problems.push(`${foreign} URIs not of the form <server>+test://<server>/r/<i>`);
  if (short.length > 0)
    problems.push(`per-upstream counts off: ${short.map(([n, c]) => `${n}=${c}`).join(', ')}`);
  if (w.unavailable.length > 0) problems.push(`upstreams reported unavailable: ${w.unavailable.join(', ')}`);
  if (problems.length > 0) {
    throw new Error(`gateway enumeration is wrong (${w.pages} pages): ${problems.join('; ')}`);
  }
}

export async function runEnumerateBenchmark(
  config: EnumerateConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<EnumerateResult> {
  const label = scenarioLabel(config);
  const tag = `enumerate, ${scenarioOf(config)}`;
  const names = Array.from({ length: config.upstreams }, (_, i) => `u${i}`);
  const expectedPages = Math.max(1, Math.ceil(config.resourcesPerUpstream / config.pageSize));
  const upstreams: Upstream[] = [];
  let gateway: Gateway | undefined;
  const clients: BenchClient[] = [];
  try {
    const started = await Promise.allSettled(
      names.map((name) =>
        startUpstream({
          name,
          resources: config.resourcesPerUpstream,
          pageSize: config.pageSize,
          latencyMs: config.latencyMs,
        }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') upstreams.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    gateway = await startGateway(upstreams, options);
    log(`${tag}: ${upstreams.length} upstreams (${label}), gateway ${gateway.url}`);
    const direct: Client[] = [];
    for (const u of upstreams) {
      const c = await connectClient(u.url, `bench-direct-${u.name}`, options);
      clients.push(c);
      direct.push(c.client);
    }
    const viaGatewayConn = await connectClient(gateway.url, 'bench-gateway', options);
    clients.push(viaGatewayConn);
    const viaGateway = viaGatewayConn.client;

    // Warm-up: one full, checked pass each way (JIT, connection pools, upstream sessions).
    for (const [i, c] of direct.entries()) checkDirect(await walk(c), names[i]!, config, expectedPages);
    checkGateway(await walk(viaGateway), names, config);

    const sum = (values: (number | undefined)[]): number | undefined =>
      values.some((v) => v === undefined) ? undefined : values.reduce<number>((a, v) => a + (v ?? 0), 0);
    const sampleCpu = (): (() => CpuSplit) => {
      const client = process.cpuUsage();
      const gw = cpuTimeMs(gateway!.proc);
      const ups = sum(upstreams.map((u) => cpuTimeMs(u.proc)));
      return () => {
        const c = process.cpuUsage(client);
        const gwAfter = cpuTimeMs(gateway!.proc);
        const upsAfter = sum(upstreams.map((u) => cpuTimeMs(u.proc)));
        return {
          gateway: gw === undefined || gwAfter === undefined ? undefined : gwAfter - gw,
          upstreams: ups === undefined || upsAfter === undefined ? undefined : upsAfter - ups,
          client: (c.user + c.system) / 1000,
        };
      };
    };
    const runs: EnumerateRun[] = [];
    for (let run = 0; run < config.runs; run++) {
      const entry: Partial<EnumerateRun> = { run };
      const measureDirect = async (): Promise<void> => {
        const directMs: number[] = [];
        for (const [i, c] of direct.entries()) {
          const w = await walk(c);
          checkDirect(w, names[i]!, config, expectedPages);
          directMs.push(w.ms);
        }
        const slowest = directMs.indexOf(Math.max(...directMs));
        entry.directMs = directMs;
        entry.slowestDirectMs = directMs[slowest]!;
        entry.slowestUpstream = names[slowest]!;
        const cpu = sampleCpu();
        const start = process.hrtime.bigint();
        const all = await Promise.all(direct.map((c) => walk(c)));
        entry.directConcurrentMs = msSince(start);
        entry.directConcurrentCpuMs = cpu();
        for (const [i, w] of all.entries()) checkDirect(w, names[i]!, config, expectedPages);
      };
      const measureGateway = async (): Promise<void> => {
        const cpu = sampleCpu();
        const w = await walk(viaGateway);
        entry.gatewayWalkCpuMs = cpu();
        checkGateway(w, names, config);
        entry.gatewayMs = w.ms;
        entry.gatewayPages = w.pages;
      };
      if (run % 2 === 0) {
        await measureDirect();
        await measureGateway();
      } else {
        await measureGateway();
        await measureDirect();
      }
      const done = entry as EnumerateRun;
      runs.push(done);
      log(
        `${tag} run ${run + 1}/${config.runs}: slowest single ${done.slowestDirectMs.toFixed(1)} ms ` +
          `(${done.slowestUpstream}), all direct concurrently ${done.directConcurrentMs.toFixed(1)} ms, ` +
          `gateway ${done.gatewayMs.toFixed(1)} ms (${done.gatewayPages} pages)`,
      );
    }
    const slowestSingleMs = median(runs.map((r) => r.slowestDirectMs));
    const gatewayMs = median(runs.map((r) => r.gatewayMs));
    const directConcurrentMs = median(runs.map((r) => r.directConcurrentMs));
    const gatewayWalk = medianSplit(runs.map((r) => r.gatewayWalkCpuMs));
    const cores = availableParallelism();
    const latencyFloorMs = expectedPages * config.latencyMs;
    const cpuFloorMs = gatewayWalk.upstreams === undefined ? undefined : gatewayWalk.upstreams / cores;
    return {
      scenario: scenarioOf(config),
      label,
      config,
      expectedTotal: names.length * config.resourcesPerUpstream,
      expectedPages,
      slowestSingleMs,
      gatewayMs,
      directConcurrentMs,
      ratio: gatewayMs / slowestSingleMs,
      ratioVsConcurrent: gatewayMs / directConcurrentMs,
      gatewayPages: runs[0]?.gatewayPages ?? 0,
      directPages: expectedPages,
      cpuMs: {
        gatewayWalk,
        directConcurrent: medianSplit(runs.map((r) => r.directConcurrentCpuMs)),
      },
      floors: {
        cpu:
          gatewayWalk.upstreams === undefined || cpuFloorMs === undefined
            ? undefined
            : {
                upstreamsCpuMs: gatewayWalk.upstreams,
                cores,
                ms: cpuFloorMs,
                ratio: cpuFloorMs / slowestSingleMs,
              },
        latency: { ms: latencyFloorMs, ratio: latencyFloorMs / slowestSingleMs },
        lockStep:
          cpuFloorMs === undefined || config.latencyMs === 0
            ? undefined
            : {
                ms: latencyFloorMs + cpuFloorMs,
                ratio: (latencyFloorMs + cpuFloorMs) / slowestSingleMs,
              },
      },
      runs,
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await Promise.allSettled(upstreams.map((u) => u.proc.stop()));
  }
}
