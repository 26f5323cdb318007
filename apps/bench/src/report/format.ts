/** Text formatting shared by every section of the table: numbers, aligned tables, per-run rows. */
import type { ComparedLevel, Comparison } from '../measure.js';

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

/** A table described by its columns: header, alignment (`l`/`r`) and how to show a row's cell. */
export type Column<T> = readonly [header: string, align: 'l' | 'r', cell: (row: T) => string];

export function columnTable<T>(columns: readonly Column<T>[], rows: readonly T[], indent = '  '): string {
  const cells = rows.map((row) => columns.map(([, , cell]) => cell(row)));
  return table(
    columns.map(([header]) => header),
    cells,
    columns.map(([, align]) => align).join(''),
    indent,
  );
}

/** A whole number (CPU µs or ms, a floor in ms), or `n/a` where it could not be measured. */
export function intOrNa(n: number | undefined): string {
  return n === undefined ? 'n/a' : int.format(n);
}

export function range(runs: { rps: number }[]): string {
  const rps = runs.map((r) => r.rps);
  return `${int.format(Math.min(...rps))}-${int.format(Math.max(...rps))}`;
}

/** What each round ran, e.g. `reads per round: c=1: 300 after 50 warm-up; …; 3 interleaved rounds per path`. */
export function planLine(
  what: string,
  levels: readonly { concurrency: number; warmup: number; reads?: number; calls?: number; count?: number }[],
  rounds: number,
): string {
  const each = levels.map(
    (l) =>
      `c=${l.concurrency}: ${int.format(l.reads ?? l.calls ?? l.count ?? 0)} after ${int.format(l.warmup)} warm-up`,
  );
  return `${what} per round: ${each.join('; ')}; ${rounds} interleaved round(s) per path`;
}

/** How to show compared levels (measure.ts `ComparedLevel`): which paths, in which order, with which labels. */
export interface ComparedView<L extends ComparedLevel> {
  /** The rows of each level in order (a path that did not run is left out). */
  paths: readonly { path: string; label: string }[];
  /** The first column (default: `conc`, the level's concurrency). */
  first?: { header: string; cell: (level: L) => string };
  /** A comparison row's label (default `path/baseline`). */
  pairLabel?: (vs: Comparison) => string;
  columns?: readonly Column<L['rounds'][number]>[];
}

const RUN_HEADER = [
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

/**
 * The table of every section that compares paths: per level, the median round of each path (req/s,
 * latencies, the spread of its rounds, CPU per request of the client, the upstream and the gateway, then
 * the view's columns), then one row per compared pair (`comparedLegend` says what they hold).
 */
export function comparedTable<L extends ComparedLevel>(levels: readonly L[], view: ComparedView<L>): string {
  const first = view.first ?? { header: 'conc', cell: (level: L) => String(level.concurrency) };
  const columns = view.columns ?? [];
  const cpu = (n: number | undefined): string => (n === undefined ? '-' : int.format(n));
  const rows: string[][] = [];
  for (const level of levels) {
    const shown = view.paths.filter(({ path }) => level.medians[path]);
    for (const [i, { path, label }] of shown.entries()) {
      const run = level.medians[path]!;
      rows.push([
        i === 0 ? first.cell(level) : '',
        label,
        int.format(run.rps),
        run.p50.toFixed(3),
        run.p99.toFixed(3),
        run.max.toFixed(2),
        range(level.rounds.filter((r) => r.path === path)),
        cpu(run.cpuUsPerRead.client),
        cpu(run.cpuUsPerRead.upstream),
        cpu(run.cpuUsPerRead.gateway),
        ...columns.map(([, , cell]) => cell(run)),
      ]);
    }
    for (const vs of level.comparisons) {
      rows.push([
        '',
        view.pairLabel?.(vs) ?? `${vs.path}/${vs.baseline}`,
        `${vs.throughputRatio.toFixed(2)}x`,
        signed(vs.addedP50Ms),
        signed(vs.addedP99Ms),
        '',
        `${vs.pairedThroughputRatio.toFixed(2)}x paired`,
        '',
        '',
        vs.addedGatewayCpuUs === undefined ? '' : signed(vs.addedGatewayCpuUs, 0),
        ...columns.map(() => ''),
      ]);
    }
  }
  const header = [first.header, ...RUN_HEADER, ...columns.map(([h]) => h)];
  const align = `${first.header === 'conc' ? 'r' : 'l'}l${'r'.repeat(RUN_HEADER.length - 1)}`;
  return table(header, rows, align + columns.map(([, a]) => a).join(''));
}

/** What the comparison rows and the CPU columns of `comparedTable` hold. */
export function comparedLegend(): string[] {
  return [
    '   …/… rows: throughput ratio and added p50 / p99 (ms) of the median rounds, then paired round by round: ' +
      'the median req/s ratio and the gateway CPU added (µs); cpu columns: µs per request (README, 1).',
  ];
}

/** A section of compared paths: its title line(s), what each round ran, the table, then its notes. */
export function comparedSection<L extends ComparedLevel>(
  title: string | string[],
  plan: string,
  levels: readonly L[],
  view: ComparedView<L>,
  notes: string[] = [],
): string[] {
  return [
    title,
    `   ${plan}; median round (by req/s) shown`,
    '',
    comparedTable(levels, view),
    ...notes,
    '',
  ].flat();
}
