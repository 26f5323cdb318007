/** Section 5: replicas behind HAProxy sharing one Redis (5a + 5c, 5b, 5d). */
import type { ReadPathLevel } from '../read-paths.js';
import type {
  RateLimitResult,
  ReplicasResult,
  SessionMemoryResult,
  SharedCacheResult,
} from '../replicas/index.js';
import type { PathInfo } from '../replicas/model.js';
import type { RedisSnapshot } from '../replicas/redis-probe.js';
import { comparedTable, int, intOrNa, levelsLine, signed, table } from './format.js';

/** What each compared pair isolates (table label of `path/baseline`). */
const PAIR_LABELS: Record<string, string> = {
  'two/one': 'two/one replica',
  'two/solo': 'lb+store ×2 / solo',
  'replica/solo': 'store / no store',
  'one/replica': 'HAProxy / direct',
  'two-legacy/one-legacy': 'legacy two/one',
  'two-legacy/two': 'legacy / sessionless',
  'memory/bare': 'in-memory / none',
  'redis/memory': 'redis / in-memory',
  'redis/bare': 'redis / none',
};

/**
 * A part's table: the compared paths, then HAProxy's CPU per read (µs), the Redis commands per read (the
 * store at work: its CPU is below /proc's 10 ms resolution at these sizes; it is in the JSON) and the
 * upstream reads.
 */
function levelsTable(levels: ReadPathLevel[], paths: PathInfo[]): string {
  return comparedTable(levels, {
    paths,
    pairLabel: (vs) => PAIR_LABELS[`${vs.path}/${vs.baseline}`] ?? `${vs.path}/${vs.baseline}`,
    columns: [
      [
        'cpu lb',
        'r',
        (run) => (run.cpuUsPerRead.balancer === undefined ? '-' : intOrNa(run.cpuUsPerRead.balancer)),
      ],
      ['redis cmd/read', 'r', (run) => run.redisCommandsPerRead?.toFixed(2) ?? '-'],
      ['up reads', 'r', (run) => `${run.upstreamReads}/${run.readsIssued}`],
    ],
  });
}

function renderSharedCache(r: SharedCacheResult, c: ReplicasResult['config']): string[] {
  const shared =
    r.secondReplicaUpstreamReads === 0
      ? 'none: B was served from the cache A filled, shared through Redis'
      : r.secondReplicaUpstreamReads >= c.resources
        ? 'every URI: B keeps its own cache, not shared'
        : 'some: partly shared';
  const legacy = r.legacy;
  return [
    `5a/5c. Reads through replicas sharing a cache — 1 testkit upstream (${c.resources} resources, ` +
      `${c.payloadBytes} B, ${c.cacheUpstreamLatencyMs} ms per read); every gateway runs @switchyard/plugin-cache ` +
      '(defaults); A and B share one redis-server (store.redis, one cursorSecret)',
    '   client: sessionless 2026-07-28 resources/read POSTs (no session, so any replica can answer any request)',
    `   reads per round: ${levelsLine(c.levels)}; ${c.rounds} interleaved rounds per path; median round shown`,
    '',
    levelsTable(r.levels, r.paths),
    '   two/one: 5a, the ratio of two replicas to one behind the same HAProxy. lb+store ×2 / solo: 5c, what the ' +
      'balancer and the store add over one gateway without them (ms); store / no store and HAProxy / direct ' +
      "split it. cpu gw sums the replicas behind the path; redis cmd/read counts every store path's commands " +
      `on the one redis-server (${r.redisClients} client connection(s) from the replicas).`,
    `   shared cache: warming read every URI once on A (${r.warmReadsA} upstream reads), then once on B: ` +
      `${r.secondReplicaUpstreamReads} upstream reads (${shared}); no-store gateway ${r.warmReadsSolo}; ` +
      `a second pass on all three ${r.rehitUpstreamReads}.`,
    `   legacy session through HAProxy → A + B: ${legacy.opened ? 'opened' : 'NOT opened'}, ${legacy.ok}/` +
      `${legacy.reads} reads answered${legacy.firstError ? ` (first error: ${legacy.firstError.slice(0, 120)})` : ''}.`,
    '',
  ];
}

function renderRateLimit(r: RateLimitResult, c: ReplicasResult['config']): string[] {
  return [
    `5b. Rate limiter per request, in memory vs store.redis — 1 testkit upstream (${c.resources} resources, ` +
      `${c.payloadBytes} B, 0 ms), no cache (every read reaches the upstream), one gateway per path, directly`,
    '   @switchyard/plugin-rate-limit perClient 1,000,000 req/s, burst 1,000,000 (consulted on every request, ' +
      'never refuses); sessionless 2026-07-28 resources/read',
    `   reads per round: ${levelsLine(c.levels)}; ${c.rounds} interleaved rounds per path; median round shown`,
    '',
    levelsTable(r.levels, r.paths),
    '   redis / in-memory: what keeping the buckets in Redis adds per request (throughput ratio, added p50 / p99 ' +
      `ms); redis cmd/read: Redis commands per request (${r.redisClients} client connection(s) from the store gateway).`,
    '',
  ];
}

/** A snapshot and its change against `base`, per session. */
function snapshotRow(label: string, s: RedisSnapshot, base: RedisSnapshot, sessions: number): string[] {
  const per = (now: number, then: number, digits = 0): string => {
    const n = (now - then) / sessions;
    if (n === 0) return '0';
    return digits === 0 ? `${n > 0 ? '+' : ''}${int.format(n)}` : signed(n, digits);
  };
  return [
    label,
    String(s.keys),
    per(s.keys, base.keys, 2),
    int.format(s.keyBytes),
    per(s.keyBytes, base.keyBytes),
    int.format(s.usedMemory),
    per(s.usedMemory, base.usedMemory),
  ];
}

/** The key shapes that appeared between two snapshots (digits and ids masked), most first. */
function newShapes(after: RedisSnapshot, before: RedisSnapshot): string {
  const shapes = Object.entries(after.keyShapes)
    .map(([shape, n]): [string, number] => [shape, n - (before.keyShapes[shape] ?? 0)])
    .filter(([, n]) => n !== 0)
    .sort((a, b) => b[1] - a[1]);
  return shapes.length === 0
    ? 'none'
    : shapes
        .slice(0, 6)
        .map(([shape, n]) => `${shape} ${signed(n, 0)}`)
        .join(', ');
}

function renderSessionMemory(r: SessionMemoryResult): string[] {
  const k = r.sessions;
  return [
    `5d. Legacy sessions in Redis — 1 gateway with store.redis on a fresh redis-server; ${k} sessions ` +
      '(initialize + notifications/initialized, 2025-11-25, plain POSTs), then one resources/subscribe each, ' +
      'then DELETE each',
    '',
    table(
      ['after', 'keys', 'Δ keys/session', 'key bytes', 'Δ key B/session', 'used_memory', 'Δ used B/session'],
      [
        snapshotRow('(start)', r.before, r.before, k),
        snapshotRow(`${k} sessions opened`, r.opened, r.before, k),
        snapshotRow('+1 subscription each', r.subscribed, r.opened, k),
        snapshotRow('all DELETEd', r.closed, r.before, k),
      ],
      'lrrrrrr',
    ),
    '   Δ …/session: the change against the row before (the DELETEd row: against the start) ÷ the sessions. ' +
      'key bytes: MEMORY USAGE of every key, summed (what the records take); used_memory: Redis INFO memory ' +
      '(also allocator overhead and client buffers, so it moves by kilobytes on its own). Read once the keys ' +
      `stopped moving; ${r.opened.clients} client connection(s) from the gateway.`,
    `   per session: ${int.format(r.keyBytesPerSession)} B of keys in ${r.keysPerSession.toFixed(2)} key(s) ` +
      `(used_memory ${int.format(r.bytesPerSession)} B); per subscription: ${int.format(r.keyBytesPerSubscription)} B ` +
      `of keys, ${r.keysPerSubscription.toFixed(2)} key(s) ` +
      `(${r.subscriptionsOk}/${k} subscribed${r.subscribeError ? `; first error: ${r.subscribeError.slice(0, 100)}` : ''}); ` +
      `DELETE statuses ${JSON.stringify(r.closeStatuses)}.`,
    `   new keys: sessions ${newShapes(r.opened, r.before)}; subscriptions ${newShapes(r.subscribed, r.opened)}; ` +
      `left after DELETE ${newShapes(r.closed, r.before)}.`,
    '',
  ];
}

export function renderReplicas(r: ReplicasResult): string[] {
  if (r.skipped) return [`5. Replicas — skipped: ${r.skipped}`, ''];
  const out: string[] = [];
  if (r.sharedCache) out.push(...renderSharedCache(r.sharedCache, r.config));
  if (r.rateLimit) out.push(...renderRateLimit(r.rateLimit, r.config));
  if (r.sessionMemory) out.push(...renderSessionMemory(r.sessionMemory));
  return out;
}
