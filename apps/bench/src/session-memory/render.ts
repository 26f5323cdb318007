/** The table section of the session-memory benchmark (section 7). */
import { int, table } from '../report/format.js';
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

function renderRun(run: SessionMemoryRun): string[] {
  const { census } = run;
  return [
    `   ${run.variant === 'plain' ? 'gateway on its own' : 'replicas (store.redis: sealed ids, recorded state)'}:`,
    ...perSessionLines(run, '     '),
    '     the largest groups:',
    table(
      ['group (constructor)', 'objects/session', 'bytes/session'],
      census.top.map((d) => [d.group, d.count.toFixed(2), int.format(Math.round(d.bytes))]),
      'lrr',
      '       ',
    ),
    '     the same objects by owner (the nearest instance of a class holding them):',
    table(
      ['owner', 'objects/session', 'bytes/session'],
      census.owners.map((d) => [d.group, d.count.toFixed(2), int.format(Math.round(d.bytes))]),
      'lrr',
      '       ',
    ),
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
