/** The table section of the session-memory benchmark (section 7). */
import { columnTable, int } from '../report/format.js';
import type { CensusDelta } from './heap-census.js';
import type { IdleSessionMemory, SessionMemoryResult, SessionMemoryRun } from './index.js';

/** The target of issue 18: an idle legacy session costs at most this much in the gateway process. */
export const SESSION_MEMORY_TARGET_BYTES = 10 * 1024;

const bytes = (n: number): string => `${int.format(Math.round(n))} B`;

/** The per-session figures of one measurement (section 7, and 6b under the paths matrix). */
export function perSessionLines(m: IdleSessionMemory, indent: string): string[] {
  const { perSession, census } = m;
  const verdict = perSession.heapUsed <= SESSION_MEMORY_TARGET_BYTES ? 'ok' : 'MISSED';
  return [
    `${indent}heap used ${bytes(perSession.heapUsed)}/session (target ≤ ${bytes(SESSION_MEMORY_TARGET_BYTES)}: ${verdict}), ` +
      `RSS ${bytes(perSession.rss)}/session, external ${bytes(perSession.external)}/session; ` +
      `left after DELETE ${bytes(m.leftPerDeletedSession)}/session`,
    `${indent}heap snapshot, with − without the sessions: ${bytes(census.totalBytes)} in ` +
      `${census.totalObjects.toFixed(1)} objects per session`,
  ];
}

const censusTable = (first: string, rows: readonly CensusDelta[]): string =>
  columnTable<CensusDelta>(
    [
      [first, 'l', (d) => d.group],
      ['objects/session', 'r', (d) => d.count.toFixed(2)],
      ['bytes/session', 'r', (d) => int.format(Math.round(d.bytes))],
    ],
    rows,
    '       ',
  );

function renderRun(run: SessionMemoryRun): string[] {
  const { census } = run;
  return [
    `   ${run.variant === 'plain' ? 'gateway on its own' : 'replicas (store.redis: sealed ids, recorded state)'}:`,
    ...perSessionLines(run, '     '),
    '     the largest groups:',
    censusTable('group (constructor)', census.top),
    '     the same objects by owner (the nearest instance of a class holding them):',
    censusTable('owner', census.owners),
  ];
}

export function renderSessionMemory(result: SessionMemoryResult): string[] {
  const c = result.config;
  return [
    `7. Gateway memory per idle legacy session — ${int.format(c.sessions)} sessions opened by plain POSTs ` +
      `(initialize + notifications/initialized, 2025-11-25) after ${int.format(c.warmup)} warm-up sessions; ` +
      'memoryUsage() after a full GC through the inspector',
    '',
    ...result.runs.flatMap(renderRun),
    ...(result.replicasSkipped ? [`   replicas: skipped (${result.replicasSkipped})`] : []),
    '',
  ];
}
