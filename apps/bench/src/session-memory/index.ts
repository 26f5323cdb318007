/**
 * Section 7 (README.md): what an idle legacy session costs in the gateway process, read through its V8
 * inspector (`--inspect=127.0.0.1:0`: a full GC, `memoryUsage()`, heap snapshots; no hook in the gateway).
 * After warm-up sessions, N idle sessions: heap and RSS per session, then the heap snapshots with and
 * without them counted by constructor and by owner. Alone, and with `store.redis` when Redis is installed.
 */
import { Agent } from 'node:http';
import { closeSessions, type LegacyHttpClient, openSessions } from '@switchyard/testkit/mcp';
import { redisMissing } from '@switchyard/testkit/process';
import { type Gateway, type Log, replicaConfig, Scope } from '../harness.js';
import { columnTable, int } from '../report/format.js';
import type { Sizes } from '../sizes.js';
import { type CensusDelta, census, censusDelta, nodeIds, ownership } from './heap-census.js';
import { INSPECTOR_LINE, Inspector } from './inspector.js';

export type SessionMemoryConfig = Sizes['sessionMemory'];

/** Sessions opened (or deleted) at once. */
const CONCURRENCY = 8;
/** Census groups shown in the table. */
const TOP = 15;

/** The node flag that lets `measureIdleSessions` drive a gateway's V8 inspector. */
export const INSPECT_ARGS = ['--inspect=127.0.0.1:0'];

/** What N idle legacy sessions cost one gateway (also section 6b's figures). */
export type IdleSessionMemory = Awaited<ReturnType<typeof measureIdleSessions>>;

export type SessionMemoryResult = Awaited<ReturnType<typeof runSessionMemoryBenchmark>>;

/** Ends the sessions; throws unless every `DELETE` answered 200 or 204. */
async function deleteSessions(sessions: readonly LegacyHttpClient[]): Promise<void> {
  const statuses = await closeSessions(sessions, CONCURRENCY);
  const bad = Object.keys(statuses).filter((status) => status !== '200' && status !== '204');
  if (bad.length > 0) throw new Error(`DELETE of the sessions: HTTP ${JSON.stringify(statuses)}`);
}

/**
 * Opens `config.sessions` idle legacy sessions on `gateway` (started with `INSPECT_ARGS`) after
 * `config.warmup` opened and deleted, reads its memory through the inspector with them and after their
 * `DELETE`s, and counts the heap snapshots' difference.
 */
export async function measureIdleSessions(
  gateway: Gateway,
  config: SessionMemoryConfig,
  what: string,
  log: Log,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const opening = { agent, parallel: CONCURRENCY, clientName: (i: number) => `bench-idle-${i}` };
  const inspectorUrl = (await gateway.proc.waitForLine(INSPECTOR_LINE, { what: 'the inspector URL' }))[1]!;
  const inspector = await Inspector.connect(inspectorUrl);
  try {
    log(`${what}: ${config.warmup} warm-up sessions`);
    await deleteSessions(await openSessions(gateway.url, config.warmup, opening));
    const baseline = await inspector.settledMemory();

    log(`${what}: opening ${config.sessions} idle legacy sessions`);
    const sessions = await openSessions(gateway.url, config.sessions, opening);
    const open = await inspector.settledMemory();
    const withSessions = await inspector.heapSnapshot();

    await deleteSessions(sessions);
    const deleted = await inspector.settledMemory();
    const without = await inspector.heapSnapshot();

    const n = config.sessions;
    const delta = censusDelta(census(without), census(withSessions), n);
    const owners = censusDelta(new Map(), ownership(withSessions, nodeIds(without)), n);
    return {
      sessions: n,
      memory: { baseline, open, deleted },
      perSession: {
        heapUsed: (open.heapUsed - baseline.heapUsed) / n,
        rss: (open.rss - baseline.rss) / n,
        external: (open.external - baseline.external) / n,
      },
      leftPerDeletedSession: (deleted.heapUsed - baseline.heapUsed) / n,
      census: {
        totalBytes: delta.reduce((sum, d) => sum + d.bytes, 0),
        totalObjects: delta.reduce((sum, d) => sum + d.count, 0),
        top: delta.slice(0, TOP),
        owners: owners.slice(0, TOP),
      },
    };
  } finally {
    inspector.close();
    agent.destroy();
  }
}

/** `plain`, a gateway on its own; `replicas`, with `store.redis` (sealed ids, recorded state). */
function measureOne(config: SessionMemoryConfig, variant: 'plain' | 'replicas', log: Log) {
  return Scope.with(async (scope) => {
    const upstream = await scope.upstream({ name: 'mem', resources: 10 });
    const redis = variant === 'replicas' ? await scope.redis() : undefined;
    const gateway = await scope.gateway([upstream], {
      name: `gateway (session memory, ${variant})`,
      nodeArgs: INSPECT_ARGS,
      config: redis ? replicaConfig(redis, 'bench-mem:') : undefined,
    });
    return { variant, ...(await measureIdleSessions(gateway, config, `session memory (${variant})`, log)) };
  });
}

export async function runSessionMemoryBenchmark(config: SessionMemoryConfig, log: Log) {
  const runs = [await measureOne(config, 'plain', log)];
  // Why the replicas run was skipped (no redis-server), if it was.
  const replicasSkipped = redisMissing();
  if (!replicasSkipped) runs.push(await measureOne(config, 'replicas', log));
  return { config, runs, replicasSkipped };
}

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

function renderRun(run: SessionMemoryResult['runs'][number]): string[] {
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
