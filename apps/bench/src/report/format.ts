/** Text formatting shared by every section of the table: numbers, aligned tables, per-run rows. */
import type { LatencySummary } from '../stats.js';

export function signed(n: number, digits = 3): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;
}

export const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Renders rows as a text table; `align` is one of 'l'/'r' per column. */
export function table(header: string[], rows: string[][], align: string, indent = '  '): string {
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

/** A whole number (CPU µs or ms, a floor in ms), or `n/a` where it could not be measured. */
export function intOrNa(n: number | undefined): string {
  return n === undefined ? 'n/a' : int.format(n);
}

export function range(runs: { rps: number }[]): string {
  const rps = runs.map((r) => r.rps);
  return `${int.format(Math.min(...rps))}-${int.format(Math.max(...rps))}`;
}

export function levelsLine(levels: { concurrency: number; warmup: number; reads: number }[]): string {
  return levels
    .map((l) => `c=${l.concurrency}: ${int.format(l.reads)} after ${int.format(l.warmup)} warm-up`)
    .join('; ');
}

/** The columns of every per-run table: the path, then what `runCells` fills. */
export const RUN_HEADER = [
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

/** The row under a level's runs comparing two paths: throughput ratio, then added p50 / p99, padded to `width` cells. */
export function comparisonRow(
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
export function runCells(
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
    intOrNa(run.cpuUsPerRead.client),
    intOrNa(run.cpuUsPerRead.upstream),
    showGatewayCpu ? intOrNa(run.cpuUsPerRead.gateway) : '-',
  ];
}
