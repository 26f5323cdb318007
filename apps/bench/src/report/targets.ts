/**
 * The goals the targets table holds results to (informational: never the exit code), and the notes that
 * say, from what the box's cores allow, whether the gateway or the machine decided a miss.
 */
import { availableParallelism } from 'node:os';
import type { EnumerateResult } from '../enumerate.js';
import type { ComparedLevel } from '../measure.js';
import type { CacheHitResult } from '../plugins/index.js';
import { int, signed } from './format.js';

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

export const ratio = (x: number): string => `${x.toFixed(2)}x`;
const threeDigits = (x: number): string => x.toFixed(3);

/** A goal: met when a value is at least (`>=`) or at most (`<=`) `bound`; the goal reads `op text`. */
interface Goal {
  op: '>=' | '<=';
  bound: number;
  text: string;
  show: (value: number) => string;
}

/** Every goal the targets table holds results to (issues 18, 27 and the first requirements). */
export const GOALS = {
  /** Gateway vs direct req/s: reads at every level, tool calls at c=16. */
  throughput: { op: '>=', bound: 0.9, text: '0.90x direct', show: ratio },
  readAddedP99: { op: '<=', bound: 1, text: '1 ms', show: (v) => `${signed(v)} ms` },
  /** Every enumeration scenario: gateway ≤ this × the slowest single upstream alone. */
  enumeration: { op: '<=', bound: 1.2, text: '1.20x', show: ratio },
  /** Gateway ≤ this × listing the K upstreams directly, one after another. */
  enumerationSequential: { op: '<=', bound: 0.5, text: '0.50x', show: ratio },
  /** Cache hits through the gateway vs direct reads of a 5 ms upstream. */
  cacheHit: { op: '>=', bound: 5, text: '5.00x direct', show: ratio },
  /** Tool search: search mode's tool list vs the full one at 300 tools, recall, p50 at 3,000 tools. */
  tokensSaved: { op: '>=', bound: 90, text: '90 %', show: (v) => `${v.toFixed(1)} %` },
  recallAt5: { op: '>=', bound: 0.9, text: '0.9', show: threeDigits },
  recallAt1: { op: '>=', bound: 0.7, text: '0.7', show: threeDigits },
  searchP50: { op: '<=', bound: 1, text: '1 ms', show: (v) => `${v.toFixed(3)} ms` },
} satisfies Record<string, Goal>;

/** The catalog sizes the tool search goals are held at. */
export const CATALOG_GOALS_AT = { tokensSaved: 300, latency: 3000 } as const;

/** A row holding `value` to `g`; `note` says why when the box, not the gateway, decides the outcome. */
export function check(
  g: Goal,
  name: string,
  value: number,
  note?: (met: boolean) => string | undefined,
): Target {
  const met = g.op === '>=' ? value >= g.bound : value <= g.bound;
  return { name, target: `${g.op} ${g.text}`, actual: g.show(value), value, met, note: note?.(met) };
}

/** A row that only reports a number. */
export function informational(name: string, value: number, actual: string): Target {
  return { name, target: 'informational', actual, value, met: true, informational: true };
}

/**
 * Why a cache-hit row missed: the most hits per second the box's cores can serve (client + gateway CPU
 * per hit) against the direct path, when the CPU times are known.
 */
export function hitCeilingNote(hit: CacheHitResult, concurrency: number): string {
  const label = `cache hit row, c=${concurrency}`;
  const c = hit.ceilings.find((x) => x.concurrency === concurrency);
  if (!c) return `${label}: CPU times unavailable (no /proc), no CPU ceiling computed.`;
  const numbers =
    `a hit costs ${int.format(c.clientUs)} µs of bench-client CPU + ${int.format(c.gatewayUs)} µs of ` +
    `gateway CPU; on ${c.cores} core(s) that is at most ${int.format(c.rps)} req/s, ` +
    `${c.ratio.toFixed(2)}x the direct path`;
  return c.ratio < GOALS.cacheHit.bound
    ? `${label}: cannot reach ${GOALS.cacheHit.bound.toFixed(2)}x on this box: ${numbers} (the client and the ` +
        'gateway share the cores; the direct path spends its time waiting for the upstream instead).'
    : `${label}: ${numbers}, so the CPU alone does not rule the target out here.`;
}

export function kindOf(e: EnumerateResult): string {
  return e.scenario === 'cpu-bound' ? 'CPU-bound' : 'I/O-bound';
}

/**
 * Whether the box alone rules the target out for this row: K upstreams on C cores take at least their
 * summed CPU ÷ C of wall time, whatever the gateway does, while the single upstream alone had a core to
 * itself. Always the case for the CPU-bound row on a small box. With latency, the rounds run in lock step
 * (all upstreams wait, then all compute at once), so the latency only helps once it outweighs that CPU.
 */
export function cpuFloorNote(e: EnumerateResult): string {
  const c = e.config;
  const { cpu, latency, lockStep } = e.floors;
  const label =
    `${e.method} ${kindOf(e)} row (${c.upstreams} upstreams × ${int.format(c.itemsPerUpstream)} ${e.list}, ` +
    `${c.latencyMs} ms/page)`;
  if (cpu === undefined) return `${label}: upstream CPU time unavailable (no /proc), no CPU floor computed.`;
  const target = `<= ${GOALS.enumeration.bound.toFixed(2)}x`;
  const numbers =
    `the ${c.upstreams} upstreams alone used ${int.format(cpu.upstreamsCpuMs)} ms of CPU per enumeration ` +
    `through the gateway; on ${cpu.cores} core(s) that is >= ${int.format(cpu.ms)} ms of wall time, ` +
    `${cpu.ratio.toFixed(2)}x the slowest single upstream's ${e.slowestSingleMs.toFixed(1)} ms`;
  if (cpu.ratio > GOALS.enumeration.bound) {
    return (
      `${label}: cannot reach ${target} on this box: ${numbers} (before any gateway or client CPU), ` +
      'so this row measures the box, not the gateway.'
    );
  }
  if (lockStep !== undefined && lockStep.ratio > GOALS.enumeration.bound) {
    return (
      `${label}: ${numbers}, but the rounds run in lock step (all wait ${c.latencyMs} ms, then all ` +
      `build their pages at once): ~${int.format(latency.ms)} + ${int.format(cpu.ms)} = ` +
      `${int.format(lockStep.ms)} ms = ${lockStep.ratio.toFixed(2)}x before any gateway CPU, so ` +
      `${target} is out of reach here; remote upstreams would spend that CPU on their own machines.`
    );
  }
  return `${label}: ${numbers}, below the target, so the box does not rule it out.`;
}

/**
 * Why a tools/call row missed, from the CPU per call of each path: when the cores are the limit, the
 * throughput ratio is at most `direct CPU per call ÷ gateway-path CPU per call` (client + upstream [+ gateway]),
 * so below the target the gateway's CPU per call decides it. The cores the direct path actually kept busy
 * (req/s × its CPU per call) say whether the cores were the limit at all in that round.
 */
export function toolCallCpuNote(level: ComparedLevel): string {
  const label = `tools/call row, c=${level.concurrency}`;
  const g = level.medians.gateway!.cpuUsPerRead;
  const d = level.medians.direct!.cpuUsPerRead;
  if (g.gateway === undefined || g.upstream === undefined || d.upstream === undefined) {
    return `${label}: CPU times unavailable (no /proc), no CPU bound computed.`;
  }
  const cores = availableParallelism();
  const direct = d.client + d.upstream;
  const via = g.client + g.upstream + g.gateway;
  const bound = direct / via;
  const busy = (level.medians.direct!.rps * direct) / 1e6;
  return (
    `${label}: a call costs ${int.format(direct)} µs of CPU directly (client ${int.format(d.client)} + ` +
    `upstream ${int.format(d.upstream)}) and ${int.format(via)} µs through the gateway (client ` +
    `${int.format(g.client)} + upstream ${int.format(g.upstream)} + gateway ${int.format(g.gateway)}); with ` +
    `the cores as the limit the gateway path reaches at most ${bound.toFixed(2)}x direct, ` +
    (bound < GOALS.throughput.bound
      ? `so the gateway's ${int.format(g.gateway)} µs per call decides the target on this box (--cpu-prof shows where it goes)`
      : 'so CPU cost alone does not rule the target out') +
    `; the direct rounds kept ${busy.toFixed(2)} of ${cores} cores busy` +
    (busy < 0.8 * cores ? ' (so the cores were not its limit: latency, or other load on the box).' : '.')
  );
}
