import { columnTable, comparedSection, int, intOrNa, planLine, signed } from '../report/format.js';
import type { Sizes } from '../sizes.js';
import type { ReplicasResult } from './index.js';
import type { RedisSnapshot } from './redis-probe.js';

type Config = Sizes['replicas'];

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
function part(
  title: string[],
  c: Config,
  r: NonNullable<ReplicasResult['sharedCache'] | ReplicasResult['rateLimit']>,
  notes: string[],
) {
  return comparedSection(
    title,
    planLine('reads', c.levels, c.rounds),
    r.levels,
    {
      paths: r.paths,
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
    },
    notes,
  );
}

/** A row of 5d's table: its label, the snapshot, and the snapshot its change is taken against. */
type SnapshotRow = readonly [label: string, now: RedisSnapshot, base: RedisSnapshot];

/** 5d's table: each snapshot and its change against its base, per session. */
function snapshotTable(rows: readonly SnapshotRow[], sessions: number): string {
  const per = (change: number, digits = 0): string => {
    const n = change / sessions;
    if (n === 0) return '0';
    return digits === 0 ? `${n > 0 ? '+' : ''}${int.format(n)}` : signed(n, digits);
  };
  return columnTable<SnapshotRow>(
    [
      ['after', 'l', ([label]) => label],
      ['keys', 'r', ([, s]) => String(s.keys)],
      ['Δ keys/session', 'r', ([, s, base]) => per(s.keys - base.keys, 2)],
      ['key bytes', 'r', ([, s]) => int.format(s.keyBytes)],
      ['Δ key B/session', 'r', ([, s, base]) => per(s.keyBytes - base.keyBytes)],
      ['used_memory', 'r', ([, s]) => int.format(s.usedMemory)],
      ['Δ used B/session', 'r', ([, s, base]) => per(s.usedMemory - base.usedMemory)],
    ],
    rows,
  );
}

/** The key shapes that appeared between two snapshots (digits and ids masked), most first. */
function newShapes(after: RedisSnapshot, before: RedisSnapshot): string {
  const shapes = Object.entries(after.keyShapes)
    .map(([shape, n]): [string, number] => [shape, n - (before.keyShapes[shape] ?? 0)])
    .filter(([, n]) => n !== 0)
    .sort((a, b) => b[1] - a[1]);
  if (shapes.length === 0) return 'none';
  return shapes
    .slice(0, 6)
    .map(([shape, n]) => `${shape} ${signed(n, 0)}`)
    .join(', ');
}

export function renderReplicas(r: ReplicasResult): string[] {
  if (r.skipped) return [`5. Replicas — skipped: ${r.skipped}`, ''];
  const { sharedCache: s, rateLimit: l, sessionMemory: m, config: c } = r;
  const out: string[] = [];
  if (s) {
    const shared =
      s.secondReplicaUpstreamReads === 0
        ? 'none: B was served from the cache A filled, shared through Redis'
        : s.secondReplicaUpstreamReads >= c.resources
          ? 'every URI: B keeps its own cache, not shared'
          : 'some: partly shared';
    const legacy = s.legacy;
    out.push(
      ...part(
        [
          `5a/5c. Reads through replicas sharing a cache — 1 testkit upstream (${c.resources} resources, ` +
            `${c.payloadBytes} B, ${c.cacheUpstreamLatencyMs} ms per read); every gateway runs ` +
            '@switchyard/plugin-cache (defaults); A and B share one redis-server (store.redis, one cursorSecret)',
          '   client: sessionless 2026-07-28 resources/read POSTs (no session, so any replica can answer any request)',
        ],
        c,
        s,
        [
          '   two/one: 5a; lb+store ×2 / solo: 5c, split by store / no store and HAProxy / direct (README, 5); ' +
            `cpu gw sums the replicas of a path; redis: ${s.redisClients} client connection(s) from the replicas.`,
          `   shared cache: warming read every URI once on A (${s.warmReadsA} upstream reads), then once on B: ` +
            `${s.secondReplicaUpstreamReads} upstream reads (${shared}); no-store gateway ${s.warmReadsSolo}; ` +
            `a second pass on all three ${s.rehitUpstreamReads}.`,
          `   legacy session through HAProxy → A + B: ${legacy.opened ? 'opened' : 'NOT opened'}, ${legacy.ok}/` +
            `${legacy.reads} reads answered${legacy.firstError ? ` (first error: ${legacy.firstError.slice(0, 120)})` : ''}.`,
        ],
      ),
    );
  }
  if (l) {
    out.push(
      ...part(
        [
          `5b. Rate limiter per request, in memory vs store.redis — 1 testkit upstream (${c.resources} resources, ` +
            `${c.payloadBytes} B, 0 ms), no cache (every read reaches the upstream), one gateway per path, directly`,
          '   @switchyard/plugin-rate-limit perClient 1,000,000 req/s, burst 1,000,000 (consulted on every ' +
            'request, never refuses); sessionless 2026-07-28 resources/read',
        ],
        c,
        l,
        [
          '   redis / in-memory: what keeping the buckets in Redis adds per request; redis cmd/read: Redis ' +
            `commands per request (${l.redisClients} client connection(s) from the store gateway).`,
        ],
      ),
    );
  }
  if (m) {
    const k = m.sessions;
    out.push(
      `5d. Legacy sessions in Redis — 1 gateway with store.redis on a fresh redis-server; ${k} sessions ` +
        '(initialize + notifications/initialized, 2025-11-25, plain POSTs), then one resources/subscribe each, ' +
        'then DELETE each',
      '',
      snapshotTable(
        [
          ['(start)', m.before, m.before],
          [`${k} sessions opened`, m.opened, m.before],
          ['+1 subscription each', m.subscribed, m.opened],
          ['all DELETEd', m.closed, m.before],
        ],
        k,
      ),
      '   Δ …/session: the change against the row before (DELETEd: against the start) ÷ the sessions; ' +
        `columns: README, 5d; read once the keys stopped moving; ${m.opened.clients} client connection(s).`,
      `   per session: ${int.format(m.keyBytesPerSession)} B of keys in ${m.keysPerSession.toFixed(2)} key(s) ` +
        `(used_memory ${int.format(m.bytesPerSession)} B); per subscription: ${int.format(m.keyBytesPerSubscription)} B ` +
        `of keys, ${m.keysPerSubscription.toFixed(2)} key(s) (${m.subscriptionsOk}/${k} subscribed` +
        `${m.subscribeError ? `; first error: ${m.subscribeError.slice(0, 100)}` : ''}); ` +
        `DELETE statuses ${JSON.stringify(m.closeStatuses)}.`,
      `   new keys: sessions ${newShapes(m.opened, m.before)}; subscriptions ${newShapes(m.subscribed, m.opened)}; ` +
        `left after DELETE ${newShapes(m.closed, m.before)}.`,
      '',
    );
  }
  return out;
}
