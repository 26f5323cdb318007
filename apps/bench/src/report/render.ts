/** The human-readable table (stdout) and the targets evaluation shared with the JSON report. */
import type { EnumerateResult } from './enumerate.js';
import {
  type CacheHitResult,
  type PluginsResult,
  STACK_LABELS,
  type StackPath,
  type StackResult,
} from './plugins.js';
import type { ReadResult } from './read.js';
import type { LatencySummary } from './stats.js';

export interface Target {
  name: string;
  target: string;
  actual: string;
  value: number;
  met: boolean;
  /** No goal was set: the row only reports a number (`met` is then meaningless). */
  informational?: boolean;
  /** Why the result is what it is when the box, not the gateway, decides it (printed under the table). */
  note?: string;
}

export interface Environment {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  loadavg: number[];
}

/** Enumeration goal, on every scenario: gateway ≤ this × the slowest single upstream alone. */
const ENUMERATION_TARGET = 1.2;

/** Cache goal (issue requirement): cache hits through the gateway ≥ this × direct reads of a 5 ms upstream. */
const CACHE_HIT_TARGET = 5;

/** The stated goals, evaluated against the results. Informational only: never changes the exit code. */
export function evaluateTargets(
  read: ReadResult | undefined,
  enumerate: EnumerateResult[],
  plugins?: PluginsResult,
): Target[] {
  const targets: Target[] = [];
  for (const level of read?.levels ?? []) {
    targets.push({
      name: `read throughput, c=${level.concurrency}`,
      target: '>= 0.90x direct',
      actual: `${level.throughputRatio.toFixed(2)}x`,
      value: level.throughputRatio,
      met: level.throughputRatio >= 0.9,
    });
  }
  for (const level of read?.levels ?? []) {
    targets.push({
      name: `read added p99, c=${level.concurrency}`,
      target: '<= 1 ms',
      actual: `${signed(level.addedP99Ms)} ms`,
      value: level.addedP99Ms,
      met: level.addedP99Ms <= 1,
    });
  }
  for (const e of enumerate) {
    targets.push({
      name: `enumeration vs slowest single, ${kindOf(e)} (${e.config.latencyMs} ms/page)`,
      target: `<= ${ENUMERATION_TARGET.toFixed(2)}x`,
      actual: `${e.ratio.toFixed(2)}x`,
      value: e.ratio,
      met: e.ratio <= ENUMERATION_TARGET,
      note: cpuFloorNote(e),
    });
  }
  const hit = plugins?.hit;
  for (const level of hit?.levels ?? []) {
    const vs = level.comparisons[0]!;
    const met = vs.throughputRatio >= CACHE_HIT_TARGET;
    targets.push({
      name: `cache hit vs direct (${hit!.config.latencyMs} ms upstream), c=${level.concurrency}`,
      target: `>= ${CACHE_HIT_TARGET.toFixed(2)}x direct`,
      actual: `${vs.throughputRatio.toFixed(2)}x`,
      value: vs.throughputRatio,
      met,
      note: met ? undefined : hitCeilingNote(hit!, level.concurrency),
    });
  }
  for (const level of plugins?.stack?.levels ?? []) {
    for (const vs of level.comparisons) {
      targets.push({
        name: `plugin stack on a miss, ${vs.path === 'stack' ? 'coherent' : 'coherent: false'}, c=${level.concurrency}`,
        target: 'informational',
        actual: `${vs.throughputRatio.toFixed(2)}x bare, p50 ${signed(vs.addedP50Ms)} / p99 ${signed(vs.addedP99Ms)} ms`,
        value: vs.throughputRatio,
        met: true,
        informational: true,
      });
    }
  }
  return targets;
}

/**
 * Why a cache-hit row missed: the most hits per second the box's cores can serve (client + gateway CPU
 * per hit) against the direct path, when the CPU times are known.
 */
function hitCeilingNote(hit: CacheHitResult, concurrency: number): string {
  const label = `cache hit row, c=${concurrency}`;
  const c = hit.ceilings.find((x) => x.concurrency === concurrency);
  if (!c) return `${label}: CPU times unavailable (no /proc), no CPU ceiling computed.`;
  const numbers =
    `a hit costs ${int.format(c.clientUs)} µs of bench-client CPU + ${int.format(c.gatewayUs)} µs of ` +
    `gateway CPU; on ${c.cores} core(s) that is at most ${int.format(c.rps)} req/s, ` +
    `${c.ratio.toFixed(2)}x the direct path`;
  return c.ratio < CACHE_HIT_TARGET
    ? `${label}: cannot reach ${CACHE_HIT_TARGET.toFixed(2)}x on this box: ${numbers} (the client and the ` +
        'gateway share the cores; the direct path spends its time waiting for the upstream instead).'
    : `${label}: ${numbers}, so the CPU alone does not rule the target out here.`;
}

function kindOf(e: EnumerateResult): string {
  return e.scenario === 'cpu-bound' ? 'CPU-bound' : 'I/O-bound';
}

/**
 * Whether the box alone rules the target out for this row: K upstreams on C cores take at least their
 * summed CPU ÷ C of wall time, whatever the gateway does, while the single upstream alone had a core to
 * itself. Always the case for the CPU-bound row on a small box. With latency, the rounds run in lock step
 * (all upstreams wait, then all compute at once), so the latency only helps once it outweighs that CPU.
 */
function cpuFloorNote(e: EnumerateResult): string {
  const c = e.config;
  const { cpu, latency, lockStep } = e.floors;
  const label =
    `${kindOf(e)} row (${c.upstreams} upstreams × ${int.format(c.resourcesPerUpstream)}, ` +
    `${c.latencyMs} ms/page)`;
  if (cpu === undefined) return `${label}: upstream CPU time unavailable (no /proc), no CPU floor computed.`;
  const target = `<= ${ENUMERATION_TARGET.toFixed(2)}x`;
  const numbers =
    `the ${c.upstreams} upstreams alone used ${int.format(cpu.upstreamsCpuMs)} ms of CPU per enumeration ` +
    `through the gateway; on ${cpu.cores} core(s) that is >= ${int.format(cpu.ms)} ms of wall time, ` +
    `${cpu.ratio.toFixed(2)}x the slowest single upstream's ${e.slowestSingleMs.toFixed(1)} ms`;
  if (cpu.ratio > ENUMERATION_TARGET) {
    return (
      `${label}: cannot reach ${target} on this box: ${numbers} (before any gateway or client CPU), ` +
      'so this row measures the box, not the gateway.'
    );
  }
  if (lockStep !== undefined && lockStep.ratio > ENUMERATION_TARGET) {
    return (
      `${label}: ${numbers}, but the rounds run in lock step (all wait ${c.latencyMs} ms, then all ` +
      `build their pages at once): ~${int.format(latency.ms)} + ${int.format(cpu.ms)} = ` +
      `${int.format(lockStep.ms)} ms = ${lockStep.ratio.toFixed(2)}x before any gateway CPU, so ` +
      `${target} is out of reach here; remote upstreams would spend that CPU on their own machines.`
    );
  }
  return `${label}: ${numbers}, below the target, so the box does not rule it out.`;
}

function signed(n: number, digits = 3): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;
}

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Renders rows as a text table; `align` is one of 'l'/'r' per column. */
function table(header: string[], rows: string[][], align: string, indent = '  '): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]): string =>
    indent +
    cells
      .map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = indent + widths.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(header), rule, ...rows.map(fmt)].join('\n');
}

function cpuCell(us: number | undefined): string {
  return us === undefined ? 'n/a' : int.format(us);
}

function cpuMs(ms: number | undefined): string {
  return ms === undefined ? 'n/a' : int.format(ms);
}

/** The enumeration floors as one line: the upstreams' CPU over the cores, latency × round trips, both. */
function floors(e: EnumerateResult): string {
  const { cpu, latency, lockStep } = e.floors;
  const parts = [
    cpu === undefined
      ? 'upstream CPU n/a'
      : `upstream CPU ${cpuMs(cpu.upstreamsCpuMs)} ms ÷ ${cpu.cores} cores = ${cpuMs(cpu.ms)} ms ` +
        `(${cpu.ratio.toFixed(2)}x)`,
  ];
  if (e.config.latencyMs > 0) {
    parts.push(
      `latency ${e.expectedPages} round trips × ${e.config.latencyMs} ms = ${cpuMs(latency.ms)} ms ` +
        `(${latency.ratio.toFixed(2)}x)`,
    );
  }
  if (lockStep !== undefined) {
    parts.push(
      `lock step, latency + upstream CPU: ~${cpuMs(lockStep.ms)} ms (${lockStep.ratio.toFixed(2)}x)`,
    );
  }
  return parts.join('; ');
}

function range(runs: { rps: number }[]): string {
  const rps = runs.map((r) => r.rps);
  return `${int.format(Math.min(...rps))}-${int.format(Math.max(...rps))}`;
}

export function renderTable(options: {
  mode: string;
  env: Environment;
  startedAt: string;
  durationMs: number;
  read?: ReadResult;
  enumerate: EnumerateResult[];
  plugins?: PluginsResult;
  targets: Target[];
  jsonPath: string;
  clientFetch: string;
}): string {
  const { env, read, enumerate, plugins, targets } = options;
  const out: string[] = [];
  out.push(
    `Switchyard benchmark (${options.mode}) — ${options.startedAt}`,
    `node ${env.node}, ${env.platform}/${env.arch}, ${env.cpus} CPU(s) (${env.cpuModel}), ` +
      `load avg at start ${env.loadavg.map((l) => l.toFixed(2)).join(' ')}`,
    options.clientFetch.startsWith('raw')
      ? `bench client: ${options.clientFetch}`
      : `bench client: @modelcontextprotocol/client over Streamable HTTP, fetch: ${options.clientFetch}`,
  );
  if (env.loadavg[0]! > env.cpus * 0.5) {
    out.push(
      `WARNING: the box was already busy at start (1-min load ${env.loadavg[0]!.toFixed(2)} on ${env.cpus} ` +
        'CPUs): other processes compete for the cores, so the absolute numbers and ratios are unreliable.',
    );
  }
  out.push('');

  if (read) {
    const c = read.config;
    out.push(
      `1. resources/read over Streamable HTTP — 1 testkit upstream (${c.resources} resources, ` +
        `${c.payloadBytes} B payload)`,
      `   ${int.format(c.reads)} reads per round after ${int.format(c.warmup)} warm-up reads; ` +
        `${c.rounds} interleaved rounds per path; median round (by req/s) shown`,
      '',
    );
    const rows: string[][] = [];
    for (const level of read.levels) {
      for (const run of [level.direct, level.gateway]) {
        rows.push([
          run === level.direct ? String(level.concurrency) : '',
          ...runCells(run, run.path, level.rounds, run.path === 'gateway'),
        ]);
      }
      rows.push(comparisonRow('gw/direct', level, RUN_HEADER.length));
    }
    out.push(
      table(RUN_HEADER, rows, 'rlrrrrrrrr'),
      '   gw/direct row: throughput ratio, then added p50 / p99 (gateway − direct, ms).',
      '   cpu columns: CPU time (user + system) per read, in µs, of the bench client, the upstream and the gateway.',
      '',
    );
  }

  for (const [i, e] of enumerate.entries()) {
    const c = e.config;
    out.push(
      `2${String.fromCharCode(97 + i)}. resources/list enumeration, ${e.label} — ${c.upstreams} testkit ` +
        `upstreams × ${int.format(c.resourcesPerUpstream)} resources, page size ${c.pageSize}; ` +
        `median of ${c.runs} runs (after 1 checked warm-up)`,
      '',
    );
    const pagesNote = e.gatewayPages === e.expectedPages ? '' : '  (UNEXPECTED page count)';
    out.push(
      table(
        ['what', 'ms', 'pages', 'resources', 'vs slowest'],
        [
          [
            'slowest single upstream, direct',
            e.slowestSingleMs.toFixed(1),
            String(e.directPages),
            int.format(c.resourcesPerUpstream),
            '1.00x',
          ],
          [
            'everything through the gateway',
            e.gatewayMs.toFixed(1),
            String(e.gatewayPages),
            int.format(e.expectedTotal),
            `${e.ratio.toFixed(2)}x`,
          ],
          [
            `(ref) all ${c.upstreams} direct, concurrently`,
            e.directConcurrentMs.toFixed(1),
            `${c.upstreams}×${e.directPages}`,
            int.format(e.expectedTotal),
            `${(e.directConcurrentMs / e.slowestSingleMs).toFixed(2)}x`,
          ],
        ],
        'lrrrr',
      ),
      `   checked every run: exactly ${int.format(e.expectedTotal)} resources, all URIs unique, ` +
        `${int.format(c.resourcesPerUpstream)} per upstream, none unavailable`,
      `   gateway round trips: ${e.gatewayPages} (expected ${e.expectedPages})${pagesNote}; ` +
        `gateway / all-direct-concurrently = ${e.ratioVsConcurrent.toFixed(2)}x`,
      `   CPU ms per full enumeration (user + system): through the gateway: gateway ` +
        `${cpuMs(e.cpuMs.gatewayWalk.gateway)}, upstreams ${cpuMs(e.cpuMs.gatewayWalk.upstreams)}, ` +
        `client ${cpuMs(e.cpuMs.gatewayWalk.client)}; all direct concurrently: upstreams ` +
        `${cpuMs(e.cpuMs.directConcurrent.upstreams)}, client ${cpuMs(e.cpuMs.directConcurrent.client)}`,
      `   floors of the gateway walk (x = vs slowest single): ${floors(e)}`,
      '',
    );
  }

  if (plugins?.hit) out.push(...renderCacheHit(plugins.hit));
  if (plugins?.stack) out.push(...renderStack(plugins.stack));

  out.push('Targets (informational, not asserted)');
  out.push(
    table(
      ['target', 'goal', 'actual', ''],
      targets.map((t) => [t.name, t.target, t.actual, t.informational ? '-' : t.met ? 'met' : 'MISSED']),
      'llrl',
    ),
  );
  for (const t of targets) if (t.note) out.push(`   ${t.note}`);
  const sections: [string, Record<string, number> | undefined][] = [
    ['read', read?.gatewayWarnings],
    ...enumerate.map((e): [string, Record<string, number>] => [
      `enumeration (${e.scenario})`,
      e.gatewayWarnings,
    ]),
    ['plugins (cache hit)', plugins?.hit?.gatewayWarnings],
    ...Object.entries(plugins?.stack?.gatewayWarnings ?? {}).map(
      ([path, warnings]): [string, Record<string, number>] => [`plugins (${path})`, warnings],
    ),
  ];
  for (const [what, warnings] of sections) {
    const kinds = Object.entries(warnings ?? {}).sort((a, b) => b[1] - a[1]);
    if (kinds.length === 0) continue;
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    out.push(
      '',
      `Gateway stderr during the ${what} benchmark: ${int.format(total)} warning line(s) (digits masked):`,
    );
    for (const [kind, n] of kinds.slice(0, 8))
      out.push(`  ${int.format(n).padStart(7)} × ${kind.slice(0, 160)}`);
  }
  out.push('', `total runtime ${(options.durationMs / 1000).toFixed(1)} s; JSON: ${options.jsonPath}`);
  return out.join('\n');
}

function levelsLine(levels: { concurrency: number; warmup: number; reads: number }[]): string {
  return levels
    .map((l) => `c=${l.concurrency}: ${int.format(l.reads)} after ${int.format(l.warmup)} warm-up`)
    .join('; ');
}

/** The columns of every per-run table: the path, then what `runCells` fills. */
const RUN_HEADER = [
  'conc',
  'path',
  'req/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'req/s range',
  'cpu client',
  'cpu up',
  'cpu gw',
];

/** The stack table's columns: every run's, then upstream subscribes per read and the gateway's memory. */
const STACK_HEADER = [...RUN_HEADER, 'subs/read', 'rss MiB'];

/** The row under a level's runs comparing two paths: throughput ratio, then added p50 / p99, padded to `width` cells. */
function comparisonRow(
  label: string,
  vs: { throughputRatio: number; addedP50Ms: number; addedP99Ms: number },
  width: number,
): string[] {
  const cells = [
    '',
    label,
    `${vs.throughputRatio.toFixed(2)}x`,
    signed(vs.addedP50Ms),
    signed(vs.addedP99Ms),
  ];
  return [...cells, ...Array<string>(width - cells.length).fill('')];
}

/**
 * One table row of a measured run: req/s, latencies, the spread of its path's rounds and the CPU per
 * read (the gateway's only where `showGatewayCpu`: by default, when it was measured).
 */
function runCells(
  run: LatencySummary & {
    path: string;
    rps: number;
    cpuUsPerRead: { client: number; upstream?: number; gateway?: number };
  },
  label: string,
  rounds: { path: string; rps: number }[],
  showGatewayCpu = run.cpuUsPerRead.gateway !== undefined,
): string[] {
  return [
    label,
    int.format(run.rps),
    run.p50.toFixed(3),
    run.p99.toFixed(3),
    run.max.toFixed(2),
    range(rounds.filter((r) => r.path === run.path)),
    cpuCell(run.cpuUsPerRead.client),
    cpuCell(run.cpuUsPerRead.upstream),
    showGatewayCpu ? cpuCell(run.cpuUsPerRead.gateway) : '-',
  ];
}

function renderCacheHit(hit: CacheHitResult): string[] {
  const c = hit.config;
  const rows: string[][] = [];
  for (const level of hit.levels) {
    const direct = level.medians.direct!;
    const cache = level.medians.cache!;
    rows.push([String(level.concurrency), ...runCells(direct, 'direct', level.rounds)]);
    rows.push(['', ...runCells(cache, 'gateway + cache (hits)', level.rounds)]);
    rows.push(comparisonRow('cache/direct', level.comparisons[0]!, RUN_HEADER.length));
  }
  return [
    `3a. Cache hits vs direct — 1 testkit upstream (${c.resources} resources, ${c.payloadBytes} B payload, ` +
      `${c.latencyMs} ms per read); gateway with @switchyard/plugin-cache (defaults)`,
    `   reads per round: ${levelsLine(c.levels)}; ${c.rounds} interleaved rounds per path; median round ` +
      '(by req/s) shown',
    '',
    table(RUN_HEADER, rows, 'rlrrrrrrrr'),
    '   cache/direct row: throughput ratio, then added p50 / p99 (gateway − direct, ms; negative = faster).',
    `   checked: warming read each of the ${c.resources} URIs once upstream (${hit.warmUpstreamReads} upstream ` +
      'reads, then a second pass with none); the upstream served 0 reads during every gateway round ' +
      '(testkit control API counter), i.e. every timed gateway read was a hit.',
    '',
  ];
}

function renderStack(stack: StackResult): string[] {
  const c = stack.config;
  const label = (path: StackPath): string => STACK_LABELS[path];
  const rows: string[][] = [];
  for (const level of stack.levels) {
    for (const [i, path] of (Object.keys(STACK_LABELS) as StackPath[]).entries()) {
      const run = level.medians[path];
      if (!run) continue;
      rows.push([
        i === 0 ? String(level.concurrency) : '',
        ...runCells(run, label(path), level.rounds),
        (run.upstreamSubscribes / run.readsIssued).toFixed(2),
        run.gatewayRssMiB === undefined ? 'n/a' : run.gatewayRssMiB.toFixed(0),
      ]);
    }
    for (const vs of level.comparisons) {
      rows.push(
        comparisonRow(`${label(vs.path as StackPath).replace('stack, ', '')}/bare`, vs, STACK_HEADER.length),
      );
    }
  }
  const audit = stack.audit
    .map(
      (a) =>
        `${label(a.path)}: ${int.format(a.readRecords)} read records / ${int.format(a.readsIssued)} reads, ${JSON.stringify(a.cacheStatus)}`,
    )
    .join('; ');
  return [
    `3b. Plugin stack on cache misses vs a bare gateway — 1 testkit upstream (${c.resources} resources, ` +
      `${c.payloadBytes} B payload, 0 ms)`,
    `   stack (outermost first): audit (fsync interval) → rate-limit (limits far above the load) → access ` +
      `(allow + 1 deny rule matching nothing) → cache (maxBytes ${int.format(c.cacheMaxBytes)} ≈ ` +
      `${stack.cacheCapacityEntries} entries of ~${int.format(stack.entryBytes)} B; reads round-robin, so every read misses)`,
    `   reads per round: ${levelsLine(c.levels)}; ${c.rounds} interleaved rounds per path; median round ` +
      '(by req/s) shown',
    '',
    table(STACK_HEADER, rows, 'rlrrrrrrrrrr'),
    '   …/bare rows: throughput ratio, then added p50 / p99 (stack − bare gateway, ms).',
    '   subs/read: upstream resources/subscribe calls per read (the coherent cache subscribes before the ' +
      'first miss of a URI and keeps the subscription for lingerMs after its entry leaves); rss: gateway RSS ' +
      'after the round.',
    `   checked: the upstream served exactly one resources/read per read issued on every path and round; audit ` +
      `logs: ${audit}; upstream subscriptions still held at the end: ${stack.upstreamSubscriptionsHeld} ` +
      `(cached entries ≤ ~${stack.cacheCapacityEntries}, plus lingering watches of recently evicted URIs).`,
    '',
  ];
}
