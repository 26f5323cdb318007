/** Section 6's matrix as data: its cells, which have a direct baseline, their results, goals and table. */
import { type ComparedLevel, comparedLevel, median, type Pair, type Run } from '../measure.js';
import { renderProfile } from '../profile.js';
import { type Column, columnTable, int, range, signed } from '../report/format.js';
import type { IdleSessionMemory } from '../session-memory/index.js';
import { perSessionLines } from '../session-memory/index.js';
import type { Sizes } from '../sizes.js';
import type { PathProfile } from './index.js';

/** How the gateway (and the direct client) reaches the upstream. */
export const UPSTREAM_KINDS = ['stdio', 'http-legacy', 'http-modern', 'ws'] as const;
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

/** The client's protocol era: a 2025-11-25 session, or sessionless 2026-07-28 requests. */
export const CLIENT_ERAS = ['legacy', 'modern'] as const;
export type ClientEra = (typeof CLIENT_ERAS)[number];

/** What each request does: `resources/read` of a 1 KiB resource, or `tools/call` of an echo tool. */
export const PATH_METHODS = ['read', 'call'] as const;
export type PathMethod = (typeof PATH_METHODS)[number];

/** The gateway's name for each upstream (its `mcpServers` key: URI and tool-name prefix), and table labels. */
export const UPSTREAM_NAMES = {
  stdio: 'stdio',
  'http-legacy': 'http',
  'http-modern': 'modern',
  ws: 'ws',
} as const;
const UPSTREAM_LABELS = {
  stdio: 'stdio',
  'http-legacy': 'HTTP legacy hop',
  'http-modern': 'HTTP modern hop',
  ws: 'WebSocket',
} as const;
const METHOD_LABELS = { read: 'read 1 KiB', call: 'tools/call' } as const;

export type PathsConfig = Sizes['paths'];

/** One cell of the matrix: an upstream transport, a client era, a method, a concurrency. */
export interface PathCell {
  upstream: UpstreamKind;
  era: ClientEra;
  method: PathMethod;
  concurrency: number;
}

/** The sides of a cell: direct, the floor proxy, HAProxy (`mode http`, HTTP upstreams only), the gateway. */
export type PathSide = 'direct' | 'floor' | 'haproxy' | 'gateway';

/**
 * A cell's result: the median round of each side (`cpuUsPerRead`: µs per request of the client and of the
 * side's middle process, by side name), the gateway compared with each other side that ran, every round,
 * and why there is no direct side when there is none.
 */
export type PathResult = PathCell & ComparedLevel & { noDirect?: string };

export interface PathsResult {
  config: PathsConfig;
  cells: PathResult[];
  /** 6b: idle legacy sessions on a fresh gateway (as section 7). */
  memory?: IdleSessionMemory;
  profiles?: PathProfile[];
  gatewayWarnings: Record<string, number>;
  /** Why there are no HAProxy rounds (not installed), or undefined when the HTTP cells have them. */
  haproxySkipped?: string | false;
}

/**
 * Why `upstream` has no direct path for a client of `era`, or undefined when it has one: only the
 * Streamable HTTP upstream started with `--modern` serves 2026-07-28 requests.
 */
export function noDirectReason(upstream: UpstreamKind, era: ClientEra): string | undefined {
  if (era === 'legacy' || upstream === 'http-modern') return undefined;
  return 'legacy-only upstream: no 2026-07-28 direct path';
}

/** Every cell of the config, in run order: upstream, then era, then method, then concurrency. */
export function pathCells(config: Pick<PathsConfig, 'upstreams' | 'eras' | 'methods' | 'concurrencies'>) {
  return config.upstreams.flatMap((upstream) =>
    config.eras.flatMap((era) =>
      config.methods.flatMap((method) =>
        config.concurrencies.map((concurrency): PathCell => ({ upstream, era, method, concurrency })),
      ),
    ),
  );
}

/** A cell's key, e.g. `http-modern/modern/read/c16` (logs). */
export function cellKey(cell: PathCell): string {
  return `${cell.upstream}/${cell.era}/${cell.method}/c${cell.concurrency}`;
}

/** The gateway compared with every other side of a cell. */
const PAIRS: readonly Pair[] = [
  ['gateway', 'direct'],
  ['gateway', 'floor'],
  ['gateway', 'haproxy'],
];

/** The median round (by req/s) of each side, and the gateway's compared with each other side that ran. */
export function compareCell(cell: PathCell, rounds: Run[], noDirect?: string): PathResult {
  if (!rounds.some((r) => r.path === 'gateway')) throw new Error(`no gateway round for ${cellKey(cell)}`);
  return {
    ...cell,
    ...(noDirect === undefined ? {} : { noDirect }),
    ...comparedLevel(cell.concurrency, rounds, PAIRS),
  };
}

/** The gateway compared with `side` in a cell, when that side ran. */
export function versus(result: PathResult, side: PathSide) {
  return result.comparisons.find((c) => c.baseline === side);
}

/** CPU per request (ms) of `side`'s own middle process in its median round. */
export function middleCpuMs(result: PathResult, side: PathSide): number | undefined {
  const us = result.medians[side]?.cpuUsPerRead[side];
  return us === undefined ? undefined : us / 1000;
}

/**
 * The `n` slowest paths: the fewest gateway req/s at the lowest concurrency (the path's latency), by the
 * gateway side alone, since the direct baselines differ in transport and some cells have none.
 */
export function slowestCells(results: readonly PathResult[], n: number): PathResult[] {
  const lowest = Math.min(...results.map((r) => r.concurrency));
  return results
    .filter((r) => r.concurrency === lowest)
    .sort((a, b) => a.medians.gateway!.rps - b.medians.gateway!.rps)
    .slice(0, n);
}

/** Issue 18's goals for every path vs direct; issue 29's against the floor measured in the same rounds. */
export const PATH_GOALS = { ratioC1: 0.85, ratioC16: 0.95, gatewayCpuMs: 0.15, addedP99MsC1: 1 } as const;
export const FLOOR_GOALS = { ratioC1: 0.85, ratioC16: 0.9, cpuOverFloorMs: 0.1 } as const;

const ratioGoal = (r: PathCell, goals: { ratioC1: number; ratioC16: number } = PATH_GOALS) =>
  r.concurrency === 1 ? goals.ratioC1 : goals.ratioC16;

/** `met/n` of the cells `test` counts (undefined: not counted, e.g. not measured) for which it holds. */
function met(cells: readonly PathResult[], test: (r: PathResult) => boolean | undefined): string {
  const counted = cells.map(test).filter((v) => v !== undefined);
  return `${counted.filter(Boolean).length}/${counted.length}`;
}

/** Whether `value` is at least (or at most) `bound`; undefined when it was not measured. */
const atLeast = (value: number | undefined, bound: number) =>
  value === undefined ? undefined : value >= bound;
const atMost = (value: number | undefined, bound: number) =>
  value === undefined ? undefined : value <= bound;

const ms = (n: number | undefined): string => (n === undefined ? 'n/a' : n.toFixed(3));
const rps = (r: PathResult, side: PathSide) => (r.medians[side] ? int.format(r.medians[side].rps) : 'n/a');
const ratio = (r: PathResult, side: PathSide) => {
  const x = versus(r, side)?.throughputRatio;
  return x === undefined ? '-' : `${x.toFixed(2)}x`;
};
const added = (r: PathResult, key: 'addedP50Ms' | 'addedP99Ms') => {
  const vs = versus(r, 'direct');
  return vs ? signed(vs[key]) : '-';
};
const both = (r: PathResult, p: 'p50' | 'p99') =>
  `${r.medians.direct?.[p].toFixed(2) ?? '-'} / ${r.medians.gateway![p].toFixed(2)}`;

/** The matrix's columns; a path without a direct baseline says so in its ratio, one below its goal is starred. */
const COLUMNS: Column<PathResult>[] = [
  ['method', 'l', (r) => METHOD_LABELS[r.method]],
  ['conc', 'r', (r) => String(r.concurrency)],
  ['upstream', 'l', (r) => UPSTREAM_LABELS[r.upstream]],
  ['client', 'l', (r) => (r.era === 'legacy' ? '2025-11-25' : '2026-07-28')],
  ['direct req/s', 'r', (r) => rps(r, 'direct')],
  ['gw req/s', 'r', (r) => rps(r, 'gateway')],
  [
    'gw/direct',
    'r',
    (r) => {
      const direct = versus(r, 'direct');
      if (direct === undefined) return 'no direct';
      return `${ratio(r, 'direct')}${direct.throughputRatio >= ratioGoal(r) ? '' : ' *'}`;
    },
  ],
  ['floor req/s', 'r', (r) => rps(r, 'floor')],
  ['gw/floor', 'r', (r) => ratio(r, 'floor')],
  ['haproxy req/s', 'r', (r) => rps(r, 'haproxy')],
  ['gw/haproxy', 'r', (r) => ratio(r, 'haproxy')],
  ['p50 d/gw ms', 'r', (r) => both(r, 'p50')],
  ['+p50 ms', 'r', (r) => added(r, 'addedP50Ms')],
  ['p99 d/gw ms', 'r', (r) => both(r, 'p99')],
  ['+p99 ms', 'r', (r) => added(r, 'addedP99Ms')],
  ['gw cpu ms/req', 'r', (r) => ms(middleCpuMs(r, 'gateway'))],
  ['floor cpu ms/req', 'r', (r) => ms(middleCpuMs(r, 'floor'))],
  ['haproxy cpu ms/req', 'r', (r) => (r.medians.haproxy ? ms(middleCpuMs(r, 'haproxy')) : 'n/a')],
  ['gw req/s range', 'r', (r) => range(r.rounds.filter((x) => x.path === 'gateway'))],
];

/** One row of the matrix. */
export function pathRow(r: PathResult): string[] {
  return COLUMNS.map(([, , cell]) => cell(r));
}

/** Matrix rows in reading order: by method, then concurrency, then upstream and era as run. */
export function orderedRows(cells: readonly PathResult[]): PathResult[] {
  const method = (r: PathResult) => PATH_METHODS.indexOf(r.method);
  return cells
    .map((r, i) => ({ r, i }))
    .sort((a, b) => method(a.r) - method(b.r) || a.r.concurrency - b.r.concurrency || a.i - b.i)
    .map(({ r }) => r);
}

/** How many cells meet each of issue 18's per-path goals, e.g. `ratio 3/20 (12 without direct)`. */
export function goalsLine(cells: readonly PathResult[]): string {
  const g = PATH_GOALS;
  const without = cells.filter((r) => !versus(r, 'direct')).length;
  const ratioMet = met(cells, (r) => atLeast(versus(r, 'direct')?.throughputRatio, ratioGoal(r)));
  const cpuMet = met(cells, (r) => atMost(middleCpuMs(r, 'gateway'), g.gatewayCpuMs));
  const p99Met = met(cells, (r) =>
    r.concurrency === 1 ? atMost(versus(r, 'direct')?.addedP99Ms, g.addedP99MsC1) : undefined,
  );
  return (
    `   goals met: ratio ${ratioMet} (${without} without direct), gw cpu ≤ ${g.gatewayCpuMs} ms ${cpuMet}, ` +
    `+p99 ≤ ${g.addedP99MsC1} ms at c=1 ${p99Met}`
  );
}

/** Where the floor itself stands against the goals: a goal the floor misses, no gateway can meet here. */
export function floorLine(cells: readonly PathResult[]): string {
  const floored = cells.filter((r) => r.medians.floor && r.medians.direct);
  if (floored.length === 0) return '   floor: not measured';
  const gwOverFloor = median(floored.map((r) => versus(r, 'floor')!.throughputRatio));
  const ratioMet = met(floored, (r) => atLeast(r.medians.floor!.rps / r.medians.direct!.rps, ratioGoal(r)));
  const cpuMet = met(floored, (r) => atMost(middleCpuMs(r, 'floor'), PATH_GOALS.gatewayCpuMs));
  return (
    `   the floor itself meets: ratio ${ratioMet}, cpu ≤ ${PATH_GOALS.gatewayCpuMs} ms ${cpuMet}; ` +
    `median gw/floor ${gwOverFloor.toFixed(2)}x`
  );
}

/** How many cells meet issue 29's goals: gw/floor req/s per concurrency, gateway CPU ≤ the floor's + 0.1 ms. */
export function floorGoalsLine(cells: readonly PathResult[]): string {
  const g = FLOOR_GOALS;
  const floored = cells.filter((r) => versus(r, 'floor'));
  const ratioMet = met(floored, (r) => atLeast(versus(r, 'floor')!.throughputRatio, ratioGoal(r, g)));
  const cpuMet = met(floored, (r) => {
    const floor = middleCpuMs(r, 'floor');
    return floor === undefined ? undefined : atMost(middleCpuMs(r, 'gateway'), floor + g.cpuOverFloorMs);
  });
  return (
    `   goals against the floor: gw/floor ≥ ${g.ratioC1}x at c=1, ≥ ${g.ratioC16}x at c=16 ${ratioMet}; ` +
    `gw cpu ≤ floor cpu + ${g.cpuOverFloorMs} ms ${cpuMet}`
  );
}

export function renderPaths(p: PathsResult): string[] {
  const c = p.config;
  const g = PATH_GOALS;
  return [
    `6a. The request path on every transport and era — 1 gateway fronting 4 testkit upstreams (${c.resources} ` +
      `resources × ${c.payloadBytes} B, ${c.tools} echo tools, ${c.argumentBytes} B argument), raw JSON-RPC clients`,
    `   ${int.format(c.count)} requests per round after ${int.format(c.warmup)} warm-up; ${c.rounds} interleaved ` +
      'round(s) per side; median round (by req/s) shown; gw cpu = the gateway process alone (/proc), per request',
    '',
    columnTable(COLUMNS, orderedRows(p.cells)),
    `   * below the goal (c=1 ≥ ${g.ratioC1}x, c=16 ≥ ${g.ratioC16}x); other goals: gw cpu ≤ ${g.gatewayCpuMs} ` +
      `ms/req, +p99 ≤ ${g.addedP99MsC1} ms at c=1.`,
    '   no direct: the upstream speaks 2025-11-25 only, so a 2026-07-28 client has no direct path to compare with.',
    "   stdio and WebSocket direct rows use the upstream's own transport (no HTTP): their ratios include the " +
      'client-to-gateway HTTP hop.',
    '   floor: a pass-through proxy with no MCP logic (floor-proxy.ts), its own process, in the same rounds — the ' +
      'least any process in the middle costs on this machine; gw/floor = gateway req/s ÷ floor req/s.',
    p.haproxySkipped
      ? `   ${p.haproxySkipped}`
      : '   haproxy: HAProxy (mode http, one backend) in front of the same HTTP upstream, in the same rounds — ' +
        'the practical limit of one more hop; gw/haproxy = gateway req/s ÷ haproxy req/s.',
    floorLine(p.cells),
    goalsLine(p.cells),
    floorGoalsLine(p.cells),
    '',
    ...(p.memory
      ? [
          `6b. Memory per idle legacy session (${int.format(p.memory.sessions)} sessions by plain POSTs, fresh ` +
            'gateway fronting the four upstreams; memoryUsage() after a full GC through the inspector, as section 7)',
          ...perSessionLines(p.memory, '   '),
          '',
        ]
      : []),
    ...(p.profiles ?? []).flatMap((prof, i) =>
      renderProfile(
        `6${String.fromCharCode(99 + i)}. Gateway CPU profile, slowest path #${i + 1} (fewest gw req/s at c=1): ` +
          `${METHOD_LABELS[prof.cell.method]}, ${UPSTREAM_LABELS[prof.cell.upstream]}, ${prof.cell.era} client, ` +
          `c=${prof.cell.concurrency} (${int.format(prof.requests)} requests, ` +
          `${(prof.busyMs / prof.requests).toFixed(3)} ms/request under the profiler)`,
        prof,
      ),
    ),
  ];
}
