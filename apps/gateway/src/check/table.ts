import type { UpstreamCounts, UpstreamProbe } from '@switchyard/core';

const TRANSPORT_NAMES = { stdio: 'stdio', http: 'streamable-http', sse: 'sse', ws: 'websocket' } as const;

const HEADER = [
  'SERVER',
  'ERA',
  'TRANSPORT',
  'PROTOCOL',
  'CONNECT_MS',
  'RESOURCES',
  'TEMPLATES',
  'TOOLS',
  'PROMPTS',
  'STATUS',
] as const;

/** Numeric columns are right-aligned. */
const NUMERIC = new Set([4, 5, 6, 7, 8]);

const COUNT_KEYS: (keyof UpstreamCounts)[] = ['resources', 'resourceTemplates', 'tools', 'prompts'];

/**
 * The `switchyard check` table: one row per upstream, in config order. A count the upstream does not
 * offer is `-`; a failed upstream shows its error in STATUS (the last column, so it may run long).
 *
 * @example
 * SERVER  ERA     TRANSPORT        PROTOCOL    CONNECT_MS  RESOURCES  TEMPLATES  TOOLS  PROMPTS  STATUS
 * docs    modern  streamable-http  2026-07-28          12         40          2      3        -  ok
 */
export function renderCheckTable(probes: readonly UpstreamProbe[]): string {
  const rows = probes.map(row);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : NUMERIC.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  return [line(HEADER), ...rows.map(line)].join('\n');
}

function row(probe: UpstreamProbe): string[] {
  const transport = TRANSPORT_NAMES[probe.transport];
  const latency = String(probe.latencyMs);
  if (!probe.ok)
    return [probe.name, '-', transport, '-', latency, '-', '-', '-', '-', `error: ${oneLine(probe.error)}`];
  const counts = COUNT_KEYS.map((key) => String(probe.counts[key] ?? '-'));
  return [probe.name, probe.era, transport, probe.protocolVersion ?? '-', latency, ...counts, 'ok'];
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The closing line under the table. */
export function summarize(probes: readonly UpstreamProbe[]): string {
  const failed = probes.filter((p) => !p.ok).length;
  if (probes.length === 0) return 'No upstreams configured: nothing to check.';
  if (failed === 0) return `All ${probes.length} upstream(s) OK.`;
  return `${failed} of ${probes.length} upstream(s) failed.`;
}
