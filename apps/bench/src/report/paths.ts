/** Section 6: the path matrix (every upstream transport × client era × method × concurrency), memory, profiles. */
import { middleCpuMs, versus } from '../paths/matrix.js';
import {
  PATH_METHODS,
  type PathResult,
  type PathSide,
  type PathsResult,
  UPSTREAM_LABELS,
} from '../paths/model.js';
import { renderProfile } from '../profile.js';
import type { IdleSessionMemory } from '../session-memory/index.js';
import { perSessionLines } from '../session-memory/render.js';
import { median } from '../stats.js';
import { type Column, columnTable, int, range, signed } from './format.js';

/** Issue 18's goals for every path, printed under the matrix. */
export const PATH_GOALS = {
  ratioC1: 0.85,
  ratioC16: 0.95,
  gatewayCpuMs: 0.15,
  addedP99MsC1: 1,
} as const;

/** Issue 29's goals, held to the floor measured in the same rounds rather than to the upstream served directly. */
export const FLOOR_GOALS = { ratioC1: 0.85, ratioC16: 0.9, cpuOverFloorMs: 0.1 } as const;

const METHOD_LABELS = { read: 'read 1 KiB', call: 'tools/call' } as const;

function ms(n: number | undefined): string {
  return n === undefined ? 'n/a' : n.toFixed(3);
}

/** The goal the ratio of `r` is held to (c=1 or the higher concurrency). */
export function ratioGoal(r: Pick<PathResult, 'concurrency'>): number {
  return r.concurrency === 1 ? PATH_GOALS.ratioC1 : PATH_GOALS.ratioC16;
}

/** The matrix's columns: header, alignment and cell; a path without a direct baseline says so in its ratio. */
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
  [
    'p50 d/gw ms',
    'r',
    (r) => `${r.medians.direct?.p50.toFixed(2) ?? '-'} / ${r.medians.gateway!.p50.toFixed(2)}`,
  ],
  ['+p50 ms', 'r', (r) => (versus(r, 'direct') ? signed(versus(r, 'direct')!.addedP50Ms) : '-')],
  [
    'p99 d/gw ms',
    'r',
    (r) => `${r.medians.direct?.p99.toFixed(2) ?? '-'} / ${r.medians.gateway!.p99.toFixed(2)}`,
  ],
  ['+p99 ms', 'r', (r) => (versus(r, 'direct') ? signed(versus(r, 'direct')!.addedP99Ms) : '-')],
  ['gw cpu ms/req', 'r', (r) => ms(middleCpuMs(r, 'gateway'))],
  ['floor cpu ms/req', 'r', (r) => ms(middleCpuMs(r, 'floor'))],
  ['haproxy cpu ms/req', 'r', (r) => (r.medians.haproxy ? ms(middleCpuMs(r, 'haproxy')) : 'n/a')],
  ['gw req/s range', 'r', (r) => range(r.rounds.filter((x) => x.path === 'gateway'))],
];

function rps(r: PathResult, side: PathSide): string {
  const run = r.medians[side];
  return run ? int.format(run.rps) : 'n/a';
}

function ratio(r: PathResult, side: PathSide): string {
  const x = versus(r, side)?.throughputRatio;
  return x === undefined ? '-' : `${x.toFixed(2)}x`;
}

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

function renderMemory(m: IdleSessionMemory): string[] {
  return [
    `6b. Memory per idle legacy session (${int.format(m.sessions)} sessions by plain POSTs, fresh gateway ` +
      'fronting the four upstreams; memoryUsage() after a full GC through the inspector, as section 7)',
    ...perSessionLines(m, '   '),
    '',
  ];
}

function renderProfiles(profiles: NonNullable<PathsResult['profiles']>): string[] {
  return profiles.flatMap((p, i) => {
    const c = p.cell;
    return renderProfile(
      `6${String.fromCharCode(99 + i)}. Gateway CPU profile, slowest path #${i + 1} (fewest gw req/s at c=1): ${METHOD_LABELS[c.method]}, ` +
        `${UPSTREAM_LABELS[c.upstream]}, ${c.era} client, c=${c.concurrency} (${int.format(p.requests)} requests, ` +
        `${(p.busyMs / p.requests).toFixed(3)} ms/request under the profiler)`,
      p,
    );
  });
}

/** How many cells meet each of issue 18's per-path goals, e.g. `ratio 3/20 (12 without direct)`. */
export function goalsLine(cells: readonly PathResult[]): string {
  const ratioed = cells.filter((r) => versus(r, 'direct'));
  const ratioMet = ratioed.filter((r) => versus(r, 'direct')!.throughputRatio >= ratioGoal(r)).length;
  const cpu = cells.filter((r) => middleCpuMs(r, 'gateway') !== undefined);
  const cpuMet = cpu.filter((r) => middleCpuMs(r, 'gateway')! <= PATH_GOALS.gatewayCpuMs).length;
  const p99 = ratioed.filter((r) => r.concurrency === 1);
  const p99Met = p99.filter((r) => versus(r, 'direct')!.addedP99Ms <= PATH_GOALS.addedP99MsC1).length;
  return (
    `   goals met: ratio ${ratioMet}/${ratioed.length} (${cells.length - ratioed.length} without direct), ` +
    `gw cpu ≤ ${PATH_GOALS.gatewayCpuMs} ms ${cpuMet}/${cpu.length}, ` +
    `+p99 ≤ ${PATH_GOALS.addedP99MsC1} ms at c=1 ${p99Met}/${p99.length}`
  );
}

/** Where the floor itself stands against the goals: a goal the floor misses, no gateway can meet here. */
export function floorLine(cells: readonly PathResult[]): string {
  const floored = cells.filter((r) => r.medians.floor && r.medians.direct);
  if (floored.length === 0) return '   floor: not measured';
  const ratioMet = floored.filter((r) => r.medians.floor!.rps / r.medians.direct!.rps >= ratioGoal(r)).length;
  const cpu = floored.filter((r) => middleCpuMs(r, 'floor') !== undefined);
  const cpuMet = cpu.filter((r) => middleCpuMs(r, 'floor')! <= PATH_GOALS.gatewayCpuMs).length;
  const gwOverFloor = median(floored.map((r) => versus(r, 'floor')!.throughputRatio));
  return (
    `   the floor itself meets: ratio ${ratioMet}/${floored.length}, cpu ≤ ${PATH_GOALS.gatewayCpuMs} ms ` +
    `${cpuMet}/${cpu.length}; median gw/floor ${gwOverFloor.toFixed(2)}x`
  );
}

/**
 * How many cells meet issue 29's goals against the floor: gw/floor req/s ≥ 0.85x at c=1 and ≥ 0.9x at c=16,
 * and gateway CPU per request ≤ the floor's + 0.1 ms.
 */
export function floorGoalsLine(cells: readonly PathResult[]): string {
  const floored = cells.filter((r) => versus(r, 'floor'));
  const ratioMet = floored.filter(
    (r) =>
      versus(r, 'floor')!.throughputRatio >=
      (r.concurrency === 1 ? FLOOR_GOALS.ratioC1 : FLOOR_GOALS.ratioC16),
  ).length;
  const cpu = floored.filter(
    (r) => middleCpuMs(r, 'gateway') !== undefined && middleCpuMs(r, 'floor') !== undefined,
  );
  const cpuMet = cpu.filter(
    (r) => middleCpuMs(r, 'gateway')! <= middleCpuMs(r, 'floor')! + FLOOR_GOALS.cpuOverFloorMs,
  ).length;
  return (
    `   goals against the floor: gw/floor ≥ ${FLOOR_GOALS.ratioC1}x at c=1, ≥ ${FLOOR_GOALS.ratioC16}x at c=16 ` +
    `${ratioMet}/${floored.length}; gw cpu ≤ floor cpu + ${FLOOR_GOALS.cpuOverFloorMs} ms ${cpuMet}/${cpu.length}`
  );
}

export function renderPaths(p: PathsResult): string[] {
  const c = p.config;
  const out = [
    `6a. The request path on every transport and era — 1 gateway fronting 4 testkit upstreams (${c.resources} ` +
      `resources × ${c.payloadBytes} B, ${c.tools} echo tools, ${c.argumentBytes} B argument), raw JSON-RPC clients`,
    `   ${int.format(c.count)} requests per round after ${int.format(c.warmup)} warm-up; ${c.rounds} interleaved ` +
      'round(s) per side; median round (by req/s) shown; gw cpu = the gateway process alone (/proc), per request',
    '',
    columnTable(COLUMNS, orderedRows(p.cells)),
    `   * below the goal (c=1 ≥ ${PATH_GOALS.ratioC1}x, c=16 ≥ ${PATH_GOALS.ratioC16}x); other goals: gw cpu ≤ ` +
      `${PATH_GOALS.gatewayCpuMs} ms/req, +p99 ≤ ${PATH_GOALS.addedP99MsC1} ms at c=1.`,
    '   no direct: the upstream speaks 2025-11-25 only, so a 2026-07-28 client has no direct path to compare with.',
    "   stdio and WebSocket direct rows use the upstream's own transport (no HTTP): their ratios include the " +
      'client-to-gateway HTTP hop.',
    '   floor: a pass-through proxy with no MCP logic (floor-proxy.ts: HTTP in, the same bytes to the upstream over ' +
      'its transport, the answer back), its own process, measured in the same rounds — the least any process in ' +
      'the middle costs on this machine; gw/floor = gateway req/s ÷ floor req/s.',
    p.haproxySkipped
      ? `   ${p.haproxySkipped}`
      : '   haproxy: HAProxy (mode http, one backend) in front of the same HTTP upstream, its own process, in the ' +
        'same rounds — the practical limit of one more hop; gw/haproxy = gateway req/s ÷ haproxy req/s.',
    floorLine(p.cells),
    goalsLine(p.cells),
    floorGoalsLine(p.cells),
    '',
  ];
  if (p.memory) out.push(...renderMemory(p.memory));
  if (p.profiles) out.push(...renderProfiles(p.profiles));
  return out;
}
