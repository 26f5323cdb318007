/** The gateway-vs-direct table of a rounds benchmark (section 1 reads, section 4a tool calls). */
import type { ReadLevel } from '../rounds.js';
import { comparisonRow, RUN_HEADER, runCells, table } from './format.js';

/** Per concurrency: the direct and gateway median rounds, then the gw/direct comparison row. */
export function renderGatewayVsDirect(levels: readonly ReadLevel[], unit: string): string[] {
  const rows: string[][] = [];
  for (const level of levels) {
    for (const run of [level.direct, level.gateway]) {
      rows.push([
        run === level.direct ? String(level.concurrency) : '',
        ...runCells(run, run.path, level.rounds, run.path === 'gateway'),
      ]);
    }
    rows.push(comparisonRow('gw/direct', level, RUN_HEADER.length));
  }
  return [
    table(RUN_HEADER, rows, 'rlrrrrrrrr'),
    '   gw/direct row: throughput ratio, then added p50 / p99 (gateway − direct, ms).',
    `   cpu columns: CPU time (user + system) per ${unit}, in µs, of the bench client, the upstream and the gateway.`,
  ];
}
