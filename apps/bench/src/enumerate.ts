/**
 * Sections 2 (`resources/list`) and 4b/4c (`tools/list`), one engine: each of K upstreams walked alone vs
 * all K merged through the gateway (a downstream page = the next page of every upstream, fetched in
 * parallel), with CPU-bound (0 ms) and I/O-bound (a fixed delay per page) upstreams; the floors say what
 * the box allows (K upstreams on C cores need their summed CPU ÷ C of wall time, whatever the gateway does).
 */
import { availableParallelism } from 'node:os';
import type { Client } from '@modelcontextprotocol/client';
import { type Gateway, type RunOptions, Scope } from './harness.js';
import { checkWalk, LIST_KINDS, listUpstream, owned, walk } from './lists.js';
import { cpuSampler, median, msSince, roundOrder } from './measure.js';
import { int, intOrNa, table } from './report/format.js';
import type { Sizes } from './sizes.js';

export type EnumerateConfig = Sizes['enumerate'][number];
export type EnumerateResult = Awaited<ReturnType<typeof runEnumerateBenchmark>>;

/** CPU time (ms, user + system) during a walk: the gateway (absent on direct walks), all upstreams, this client. */
type CpuSplit = { client: number; gateway?: number; upstreams?: number };

/** The `--cpu-prof` subdirectory of a config's gateway: `enumerate-<scenario>` or `tools-list-<scenario>`. */
export function profileDirOf(config: EnumerateConfig): string {
  const scenario = config.latencyMs > 0 ? 'io-bound' : 'cpu-bound';
  return `${config.list === 'resources' ? 'enumerate' : `${config.list}-list`}-${scenario}`;
}

/** Checks a gateway walk; a failure carries the gateway's last WARN/ERROR lines (why an upstream was left out). */
function checkGatewayWalk(
  w: Awaited<ReturnType<typeof walk>>,
  owners: Map<string, string>,
  per: number,
  gateway: Gateway,
) {
  try {
    checkWalk('the gateway enumeration', w, owners, per);
  } catch (error) {
    const said = gateway.proc.tail().filter((line) => /\b(WARN|ERROR)\b/.test(line));
    const tail = said.length > 0 ? `\n  the gateway logged:\n    ${said.slice(-5).join('\n    ')}` : '';
    throw new Error(`${(error as Error).message}${tail}`);
  }
}

export async function runEnumerateBenchmark(
  config: EnumerateConfig,
  log: (message: string) => void,
  options: RunOptions = {},
) {
  const kind = LIST_KINDS[config.list];
  const scenario = config.latencyMs > 0 ? ('io-bound' as const) : ('cpu-bound' as const);
  const label =
    config.latencyMs > 0
      ? `I/O-bound upstreams (${config.latencyMs} ms per page)`
      : 'CPU-bound upstreams (0 ms latency)';
  const tag = `${kind.method}, ${scenario}`;
  const names = Array.from({ length: config.upstreams }, (_, i) => `u${i}`);
  const per = config.itemsPerUpstream;
  const directPages = Math.max(1, config.pageSize > 0 ? Math.ceil(per / config.pageSize) : 1);
  const exposed = owned(config.list, names, per, true);
  const direct = new Map(names.map((s) => [s, owned(config.list, s, per)]));
  return Scope.with(async (scope) => {
    const upstreams = await Promise.all(
      names.map((name) =>
        scope.upstream(listUpstream(config.list, name, per, config.pageSize, config.latencyMs)),
      ),
    );
    const gw = await scope.gateway(upstreams, options);
    log(`${tag}: ${upstreams.length} upstreams (${label}), gateway ${gw.url}`);
    const clients: Client[] = [];
    for (const u of upstreams) clients.push(await scope.client(u.url, `bench-direct-${u.name}`, options));
    const viaGateway = await scope.client(gw.url, 'bench-gateway', options);
    const check = (w: Awaited<ReturnType<typeof walk>>, i: number) =>
      checkWalk(`direct ${kind.method} of ${names[i]}`, w, direct.get(names[i]!)!, per, directPages);
    const walkDirect = async (c: Client, i: number) => {
      const w = await walk(c, kind);
      check(w, i);
      return w;
    };

    // Warm-up: one full, checked pass each way (JIT, connection pools, upstream sessions).
    for (const [i, c] of clients.entries()) await walkDirect(c, i);
    checkGatewayWalk(await walk(viaGateway, kind), exposed, per, gw);

    // CPU (ms) of the gateway, the upstreams and this process between a sample and its reading: µs per
    // 1,000 "requests" is ms in all.
    const sampleCpu = cpuSampler({ gateway: gw.proc, upstreams: upstreams.map((u) => u.proc) });
    const cpuMs = () => {
      const since = sampleCpu();
      return (): CpuSplit => since(1000) as CpuSplit;
    };
    const measureDirect = async () => {
      const directMs: number[] = [];
      for (const [i, c] of clients.entries()) directMs.push((await walkDirect(c, i)).ms);
      const slowest = directMs.indexOf(Math.max(...directMs));
      const cpu = cpuMs();
      const start = process.hrtime.bigint();
      const all = await Promise.all(clients.map((c) => walk(c, kind)));
      const directConcurrentMs = msSince(start);
      const directConcurrentCpuMs = cpu();
      for (const [i, w] of all.entries()) check(w, i);
      return {
        /** Each upstream enumerated alone, one after the other (ms, index = upstream). */
        directMs,
        slowestDirectMs: directMs[slowest]!,
        slowestUpstream: names[slowest]!,
        directConcurrentMs,
        directConcurrentCpuMs,
      };
    };
    const measureGateway = async () => {
      const cpu = cpuMs();
      const w = await walk(viaGateway, kind);
      const gatewayWalkCpuMs = cpu();
      checkGatewayWalk(w, exposed, per, gw);
      return { gatewayMs: w.ms, gatewayPages: w.pages, gatewayWalkCpuMs };
    };
    /** One run of both sides, alternating which goes first. */
    const measureRun = async (run: number) => {
      const gatewayFirst = roundOrder(['direct', 'gateway'], run, 'mirror')[0] === 'gateway';
      const g = gatewayFirst ? await measureGateway() : undefined;
      const d = await measureDirect();
      return { run, ...d, ...(g ?? (await measureGateway())) };
    };
    const runs: Awaited<ReturnType<typeof measureRun>>[] = [];
    for (let run = 0; run < config.runs; run++) {
      const done = await measureRun(run);
      runs.push(done);
      log(
        `${tag} run ${run + 1}/${config.runs}: slowest single ${done.slowestDirectMs.toFixed(1)} ms ` +
          `(${done.slowestUpstream}), all direct concurrently ${done.directConcurrentMs.toFixed(1)} ms, ` +
          `gateway ${done.gatewayMs.toFixed(1)} ms (${done.gatewayPages} pages)`,
      );
    }

    const med = (of: (run: (typeof runs)[number]) => number) => median(runs.map(of));
    const medianSplit = (of: (run: (typeof runs)[number]) => CpuSplit): CpuSplit => {
      const field = (key: keyof CpuSplit) => {
        const values = runs.map((r) => of(r)[key]);
        return values.every((v) => v !== undefined) ? median(values as number[]) : undefined;
      };
      return {
        gateway: field('gateway'),
        upstreams: field('upstreams'),
        client: field('client') ?? Number.NaN,
      };
    };
    const slowestSingleMs = med((r) => r.slowestDirectMs);
    const gatewayMs = med((r) => r.gatewayMs);
    const directConcurrentMs = med((r) => r.directConcurrentMs);
    const directSequentialMs = med((r) => r.directMs.reduce((sum, ms) => sum + ms, 0));
    const gatewayWalk = medianSplit((r) => r.gatewayWalkCpuMs);
    // The floors: lower bounds (and one estimate) of the gateway walk's wall time on this box, whatever the
    // gateway does, to read the ratio against (a ratio target below `cpu.ratio` is out of reach here).
    // cpu: the upstreams' own summed CPU during the gateway walk spread over every core (ignores the
    // gateway's and the client's, so the real floor is higher; absent without /proc). latency: sequential
    // round trips × upstream latency. lockStep (an estimate, with latency): latency + cpu, since every round
    // all K upstreams get their request at once, wait, then build their pages at the same time.
    const cores = availableParallelism();
    const latencyMs = directPages * config.latencyMs;
    const upstreamsCpuMs = gatewayWalk.upstreams;
    const cpuFloorMs = upstreamsCpuMs === undefined ? undefined : upstreamsCpuMs / cores;
    const floor = (ms: number) => ({ ms, ratio: ms / slowestSingleMs });
    return {
      list: config.list,
      method: kind.method,
      scenario,
      label,
      config,
      expectedTotal: exposed.size,
      expectedPages: directPages,
      slowestSingleMs,
      gatewayMs,
      directConcurrentMs,
      directSequentialMs,
      ratio: gatewayMs / slowestSingleMs,
      ratioVsSequential: gatewayMs / directSequentialMs,
      ratioVsConcurrent: gatewayMs / directConcurrentMs,
      gatewayPages: runs[0]?.gatewayPages ?? 0,
      directPages,
      cpuMs: { gatewayWalk, directConcurrent: medianSplit((r) => r.directConcurrentCpuMs) },
      floors: {
        cpu:
          upstreamsCpuMs === undefined || cpuFloorMs === undefined
            ? undefined
            : { upstreamsCpuMs, cores, ...floor(cpuFloorMs) },
        latency: floor(latencyMs),
        lockStep:
          cpuFloorMs === undefined || config.latencyMs === 0 ? undefined : floor(latencyMs + cpuFloorMs),
      },
      runs,
      gatewayWarnings: Object.fromEntries(gw.proc.warnings),
    };
  });
}

/** The enumeration floors as one line: the upstreams' CPU over the cores, latency × round trips, both. */
function floors(e: EnumerateResult): string {
  const { cpu, latency, lockStep } = e.floors;
  const parts = [
    cpu === undefined
      ? 'upstream CPU n/a'
      : `upstream CPU ${intOrNa(cpu.upstreamsCpuMs)} ms ÷ ${cpu.cores} cores = ${intOrNa(cpu.ms)} ms ` +
        `(${cpu.ratio.toFixed(2)}x)`,
  ];
  if (e.config.latencyMs > 0) {
    parts.push(
      `latency ${e.expectedPages} round trips × ${e.config.latencyMs} ms = ${intOrNa(latency.ms)} ms ` +
        `(${latency.ratio.toFixed(2)}x)`,
    );
  }
  if (lockStep !== undefined) {
    parts.push(
      `lock step, latency + upstream CPU: ~${intOrNa(lockStep.ms)} ms (${lockStep.ratio.toFixed(2)}x)`,
    );
  }
  return parts.join('; ');
}

/** `heading` is the section number, e.g. `2a` or `4b`. */
export function renderEnumeration(e: EnumerateResult, heading: string): string[] {
  const c = e.config;
  const noun = e.list;
  const key = e.list === 'resources' ? 'URIs' : 'names';
  const pagesNote = e.gatewayPages === e.expectedPages ? '' : '  (UNEXPECTED page count)';
  const allPages = `${c.upstreams}×${e.directPages}`;
  /** A row: what walked, its ms, pages and items, and its time ÷ the slowest single upstream's. */
  const row = (what: string, ms: number, pages: string, items: number): string[] => [
    what,
    ms.toFixed(1),
    pages,
    int.format(items),
    `${(ms / e.slowestSingleMs).toFixed(2)}x`,
  ];
  return [
    `${heading}. ${e.method} enumeration, ${e.label} — ${c.upstreams} testkit upstreams × ` +
      `${int.format(c.itemsPerUpstream)} ${noun}, page size ${c.pageSize}; median of ${c.runs} runs ` +
      '(after 1 checked warm-up)',
    '',
    table(
      ['what', 'ms', 'pages', noun, 'vs slowest'],
      [
        row('slowest single upstream, direct', e.slowestSingleMs, String(e.directPages), c.itemsPerUpstream),
        row('everything through the gateway', e.gatewayMs, String(e.gatewayPages), e.expectedTotal),
        row(
          `(ref) all ${c.upstreams} direct, one after another`,
          e.directSequentialMs,
          allPages,
          e.expectedTotal,
        ),
        row(`(ref) all ${c.upstreams} direct, concurrently`, e.directConcurrentMs, allPages, e.expectedTotal),
      ],
      'lrrrr',
    ),
    `   checked every run: exactly the ${int.format(e.expectedTotal)} expected exposed ${key}, each once, ` +
      `${int.format(c.itemsPerUpstream)} per upstream, none unavailable`,
    `   gateway round trips: ${e.gatewayPages} (expected ${e.expectedPages})${pagesNote}; ` +
      `gateway / all-direct-concurrently = ${e.ratioVsConcurrent.toFixed(2)}x; ` +
      `gateway / all-direct-one-after-another = ${e.ratioVsSequential.toFixed(2)}x`,
    `   CPU ms per full enumeration (user + system): through the gateway: gateway ` +
      `${intOrNa(e.cpuMs.gatewayWalk.gateway)}, upstreams ${intOrNa(e.cpuMs.gatewayWalk.upstreams)}, ` +
      `client ${intOrNa(e.cpuMs.gatewayWalk.client)}; all direct concurrently: upstreams ` +
      `${intOrNa(e.cpuMs.directConcurrent.upstreams)}, client ${intOrNa(e.cpuMs.directConcurrent.client)}`,
    `   floors of the gateway walk (x = vs slowest single): ${floors(e)}`,
    '',
  ];
}
