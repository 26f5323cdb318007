/** The human-readable table (stdout): a header, every section that ran, the targets and gateway warnings. */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { type BenchResults, ranSections } from '../sections.js';
import { comparedLegend, int, table } from './format.js';
import type { Target } from './targets.js';

/** The box the run measured. */
export function environment() {
  const { version: node, platform, arch } = process;
  return {
    node,
    platform,
    arch,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    loadavg: loadavg(),
  };
}

/** What the results JSON and the table say about the run itself. */
export interface RunInfo {
  mode: string;
  startedAt: string;
  durationMs: number;
  env: ReturnType<typeof environment>;
  clientFetch: string;
}

function header(options: RunInfo): string[] {
  const { env } = options;
  const out = [
    `Switchyard benchmark (${options.mode}) — ${options.startedAt}`,
    `node ${env.node}, ${env.platform}/${env.arch}, ${env.cpus} CPU(s) (${env.cpuModel}), ` +
      `load avg at start ${env.loadavg.map((l) => l.toFixed(2)).join(' ')}`,
    options.clientFetch.startsWith('raw')
      ? `bench client: ${options.clientFetch}`
      : `bench client: @modelcontextprotocol/client over Streamable HTTP, fetch: ${options.clientFetch}`,
  ];
  if (env.loadavg[0]! > env.cpus * 0.5) {
    out.push(
      `WARNING: the box was already busy at start (1-min load ${env.loadavg[0]!.toFixed(2)} on ${env.cpus} ` +
        'CPUs): other processes compete for the cores, so the absolute numbers and ratios are unreliable.',
    );
  }
  return [...out, ''];
}

/**
 * Gateway WARN/ERROR lines (digits masked) of every benchmark, most frequent first: every `gatewayWarnings`
 * in the results (counts by kind, or by gateway then kind), named by where it sits.
 */
function warnings(results: BenchResults): string[] {
  const out: string[] = [];
  const print = (what: string, counts: Record<string, number>) => {
    const kinds = Object.entries(counts).sort((a, b) => b[1] - a[1]);
    if (kinds.length === 0) return;
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    out.push('', `Gateway stderr during ${what}: ${int.format(total)} warning line(s) (digits masked):`);
    for (const [kind, n] of kinds.slice(0, 8))
      out.push(`  ${int.format(n).padStart(7)} × ${kind.slice(0, 160)}`);
  };
  const visit = (value: unknown, where: string): void => {
    if (value === null || typeof value !== 'object') return;
    const named = value as Record<string, unknown>;
    const name = named.scenario ?? named.store ?? named.variant;
    const here = typeof name === 'string' ? `${where} (${name})` : where;
    for (const [key, child] of Object.entries(named)) {
      if (key !== 'gatewayWarnings') visit(child, Array.isArray(value) ? here : `${here} ${key}`.trim());
      else if (Object.values(child as object).every((n) => typeof n === 'number'))
        print(here, child as Record<string, number>);
      else for (const [gw, counts] of Object.entries(child as object)) print(`${here} [${gw}]`, counts);
    }
  };
  visit(results, '');
  return out;
}

export function renderTable(
  options: RunInfo & { results: BenchResults; targets: Target[]; jsonPath: string },
): string {
  const { results, targets } = options;
  const out: string[] = header(options);
  const ran = ranSections(results);
  out.push(...ran.filter((section) => !section.late).flatMap((section) => section.render()));
  // The legend names the sections with compared paths that ran.
  const compared = [...new Set(ran.flatMap((section) => section.compared() ?? []))];
  if (compared.length > 0) out.push(`Compared paths (${compared.join(', ')}):`, ...comparedLegend(), '');

  // A run of sections without targets (e.g. --only replicas) prints no empty targets table.
  if (targets.length > 0) {
    out.push(
      'Targets (informational, not asserted)',
      table(
        ['target', 'goal', 'actual', ''],
        targets.map((t) => [t.name, t.target, t.actual, t.informational ? '-' : t.met ? 'met' : 'MISSED']),
        'llrl',
      ),
    );
  }
  for (const t of targets) if (t.note) out.push(`   ${t.note}`);
  for (const section of ran.filter((s) => s.late)) out.push('', ...section.render());
  out.push(...warnings(results));
  out.push('', `total runtime ${(options.durationMs / 1000).toFixed(1)} s; JSON: ${options.jsonPath}`);
  return out.join('\n');
}
