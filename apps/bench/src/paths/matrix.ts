/** The path matrix as data: which cells run, which have a direct baseline, medians, and the slowest paths. */
import { type Comparison, comparedLevel, type Pair, type Run } from '../rounds.js';
import type { ClientEra, PathCell, PathResult, PathSide, PathsConfig, UpstreamKind } from './model.js';

/**
 * Why `upstream` has no direct path for a client of `era`, or undefined when it has one. Only the
 * Streamable HTTP upstream started with `--modern` serves 2026-07-28 requests; the stdio and WebSocket
 * upstreams of the bench, like the legacy HTTP one, speak 2025-11-25 only.
 */
export function noDirectReason(upstream: UpstreamKind, era: ClientEra): string | undefined {
  if (era === 'legacy' || upstream === 'http-modern') return undefined;
  return 'legacy-only upstream: no 2026-07-28 direct path';
}

/** Every cell of the config, in run order: upstream, then era, then method, then concurrency. */
export function pathCells(config: Pick<PathsConfig, 'upstreams' | 'eras' | 'methods' | 'concurrencies'>) {
  const cells: PathCell[] = [];
  for (const upstream of config.upstreams) {
    for (const era of config.eras) {
      for (const method of config.methods) {
        for (const concurrency of config.concurrencies) cells.push({ upstream, era, method, concurrency });
      }
    }
  }
  return cells;
}

/** A cell's key, e.g. `http-modern/modern/read/c16` (profile directories, logs). */
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
export function versus(result: PathResult, side: PathSide): Comparison | undefined {
  return result.comparisons.find((c) => c.baseline === side);
}

/** CPU per request (ms) of `side`'s own middle process (the gateway, the floor, HAProxy) in its median round. */
export function middleCpuMs(result: PathResult, side: PathSide): number | undefined {
  const us = result.medians[side]?.cpuUsPerRead[side];
  return us === undefined ? undefined : us / 1000;
}

/**
 * The `n` slowest paths: the fewest requests per second through the gateway at the lowest concurrency
 * measured (one request at a time: the path's latency). Ranked by the gateway side alone, not by the ratio,
 * because the direct baselines differ in transport (a stdio or WebSocket upstream is read directly over
 * its own transport, not over HTTP) and 2026-07-28 clients of legacy-only upstreams have none.
 */
export function slowestCells(results: readonly PathResult[], n: number): PathResult[] {
  const lowest = Math.min(...results.map((r) => r.concurrency));
  return results
    .filter((r) => r.concurrency === lowest)
    .sort((a, b) => a.medians.gateway!.rps - b.medians.gateway!.rps)
    .slice(0, n);
}
