/**
 * Section 5, replicas (README.md, section 5; DESIGN §12): several gateways behind HAProxy sharing one Redis
 * (`store.redis`), whatever sharing main has when it runs. Every part's processes start together up front
 * (starting gateways is most of a quick run), then the parts measure one after the other, each stopping its
 * processes when done. Skipped, with the reason, without redis-server or haproxy.
 * a + c. Reads of a 5 ms upstream through replicas with the cache plugin: HAProxy → one vs two replicas,
 *    whether B is served by the cache A filled, and what the balancer and the store add over one gateway.
 * b. The rate limiter's per-request cost in memory vs with `store.redis` (no cache, 0 ms upstream).
 * d. Redis memory and keys per legacy session and per subscription.
 */
import { Agent } from 'node:http';
import {
  closeSessions,
  eachLimited,
  LegacyHttpClient,
  ModernHttpClient,
  openSessions,
  type RequestClient,
} from '@switchyard/testkit/mcp';
import { haproxyMissing, type RedisServer, redisMissing } from '@switchyard/testkit/process';
import {
  counters,
  type Gateway,
  type GatewayOptions,
  type PluginEntry,
  replicaConfig,
  Scope,
  type Upstream,
  warningsOf,
} from '../harness.js';
import { LIST_KINDS, walk } from '../lists.js';
import { gatewayReadPaths, measureReadPaths, type ReadPath, readPath } from '../read-paths.js';
import { comparedSection, int, intOrNa, planLine, signed, table } from '../report/format.js';
import type { Sizes } from '../sizes.js';
import { type RedisSnapshot, redisCounters, settledSnapshot } from './redis-probe.js';

type Config = Sizes['replicas'];
type Log = (message: string) => void;

/** The resource URIs a gateway exposes (modern client); checks there are `resources`, all of `upstream`. */
async function listedUris(client: ModernHttpClient, upstream: Upstream, resources: number) {
  const { items } = await walk(client, LIST_KINDS.resources);
  if (items.length !== resources || items.some((u) => !u.startsWith(`${upstream.name}+`))) {
    throw new Error(
      `replicas: ${client.url} lists ${items.length} resources (first: ${items.slice(0, 3).join(', ')}), ` +
        `expected ${resources} of upstream ${upstream.name}`,
    );
  }
  return items;
}

/** Redis connections other than the probe's own. */
const redisClients = async (url: string) => (await redisCounters(url)).clients - 1;

/**
 * A part's processes, started and ready: its own redis-server, an upstream (reads after `latencyMs`), the
 * gateways `specs` gives (given the Redis), and the part's scope, so a half-started part stops what it had.
 */
function deploy<K extends string>(
  config: Config,
  latencyMs: number,
  specs: (redis: RedisServer) => Record<K, GatewayOptions>,
) {
  return new Scope().guard(async (scope) => {
    const [redis, upstream] = await Promise.all([
      scope.redis(),
      scope.upstream({
        name: 'a',
        resources: config.resources,
        payloadBytes: config.payloadBytes,
        latencyMs,
      }),
    ]);
    return { scope, redis, upstream, gateways: await scope.gateways([upstream], specs(redis)) };
  });
}

const CACHE: PluginEntry[] = [['@switchyard/plugin-cache', {}]];

/** 5a/5c: a 5 ms upstream, a no-store gateway and replicas A and B, all with the cache plugin. */
const deploySharedCache = (config: Config) =>
  deploy(config, config.cacheUpstreamLatencyMs, (redis) => ({
    solo: { plugins: CACHE, name: 'gateway (solo, no store)' },
    a: { plugins: CACHE, name: 'replica A', config: replicaConfig(redis) },
    b: { plugins: CACHE, name: 'replica B', config: replicaConfig(redis) },
  }));

/** The shared-cache paths in their (rotated) round order, with their table labels. */
const SHARED_CACHE_PATHS = [
  { path: 'solo', label: '1 gateway, no store, direct' },
  { path: 'replica', label: 'replica A (store), direct' },
  { path: 'one', label: 'HAProxy → A (store)' },
  { path: 'two', label: 'HAProxy → A + B (store)' },
  { path: 'one-legacy', label: 'HAProxy → A, legacy session' },
  { path: 'two-legacy', label: 'HAProxy → A + B, legacy session' },
];

/**
 * Warms every gateway (A, then B: 0 upstream reads if B is served by the cache A filled, then the no-store
 * gateway, then all again), probes a legacy session through HAProxy → A + B (every other request lands on
 * the replica that does not own it), and measures; with working legacy sessions two more paths read on them.
 */
async function runSharedCache(config: Config, d: Awaited<ReturnType<typeof deploySharedCache>>, log: Log) {
  const { redis, upstream, gateways, scope: part } = d;
  const { solo, a, b } = gateways;
  const [one, two] = await Promise.all([part.balancer([a.url]), part.balancer([a.url, b.url])]);
  log(
    `replicas/shared-cache: redis ${redis.url}, upstream ${upstream.url}, solo ${solo.url}, A ${a.url}, ` +
      `B ${b.url}, HAProxy → A ${one.mcpUrl}, HAProxy → A+B ${two.mcpUrl}`,
  );
  return Scope.with(async (scope) => {
    const agent = scope.own(new Agent({ keepAlive: true, maxSockets: 64 }));
    const uris = await listedUris(scope.own(new ModernHttpClient(a.url)), upstream, config.resources);
    const path = (
      name: string,
      url: string,
      gateways: Gateway[],
      balancer?: ReadPath['balancer'],
      client: RequestClient = scope.own(new ModernHttpClient(url)),
    ): ReadPath => ({ path: name, client, uris, gateways, balancer });
    const paths = [
      path('solo', solo.url, [solo]),
      path('replica', a.url, [a]),
      path('one', one.mcpUrl, [a], one),
      path('two', two.mcpUrl, [a, b], two),
    ];
    const [soloPath, replicaPath] = paths as [ReadPath, ReadPath];
    const onB = path('b', b.url, [b]);
    const stats = counters(upstream);
    const reads = async (target: ReadPath): Promise<number> => {
      const before = (await stats()).reads;
      await readPath(target, uris.length, 8, config.payloadBytes);
      return (await stats()).reads - before;
    };
    const warmReadsA = await reads(replicaPath);
    const secondReplicaUpstreamReads = await reads(onB);
    const warmReadsSolo = await reads(soloPath);
    let rehitUpstreamReads = 0;
    for (const target of [replicaPath, onB, soloPath]) rehitUpstreamReads += await reads(target);
    log(
      `replicas/shared-cache: warming: A read ${warmReadsA} upstream, then B ${secondReplicaUpstreamReads} ` +
        `(0 = served from the shared cache), solo ${warmReadsSolo}; second pass ${rehitUpstreamReads}`,
    );
    const legacy = { reads: 4, ok: 0, opened: false, firstError: undefined as string | undefined };
    try {
      // One socket: `initialize` and `notifications/initialized` land on different replicas.
      const one = scope.own(new Agent({ keepAlive: true, maxSockets: 1 }));
      const probe = scope.own(
        await LegacyHttpClient.open(two.mcpUrl, { agent: one, clientName: 'bench-legacy-probe' }),
      );
      legacy.opened = true;
      for (let i = 0; i < legacy.reads; i++) {
        try {
          await probe.request({ method: 'resources/read', params: { uri: uris[i % uris.length]! } });
          legacy.ok += 1;
        } catch (error) {
          legacy.firstError ??= (error as Error).message;
        }
      }
    } catch (error) {
      legacy.firstError ??= `opening: ${(error as Error).message}`;
    }
    log(`replicas/shared-cache: a legacy session through HAProxy → A+B: ${JSON.stringify(legacy)}`);
    if (legacy.opened && legacy.ok === legacy.reads) {
      for (const [name, balancer, gateways] of [
        ['one-legacy', one, [a]],
        ['two-legacy', two, [a, b]],
      ] as const) {
        const session = await LegacyHttpClient.open(balancer.mcpUrl, { agent, clientName: `bench-${name}` });
        paths.push(path(name, balancer.mcpUrl, [...gateways], balancer, scope.own(session)));
      }
    }
    const levels = await measureReadPaths({
      what: 'replicas/shared-cache',
      paths,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream,
      redis,
      pairs: [
        ['two', 'one'],
        ['two', 'solo'],
        ['replica', 'solo'],
        ['one', 'replica'],
        ['two-legacy', 'one-legacy'],
        ['two-legacy', 'two'],
      ],
      log,
    });
    return {
      plugins: CACHE,
      paths: SHARED_CACHE_PATHS,
      warmReadsA,
      secondReplicaUpstreamReads,
      warmReadsSolo,
      rehitUpstreamReads,
      legacy,
      redisClients: await redisClients(redis.url),
      levels,
      gatewayWarnings: warningsOf({ solo, A: a, B: b }),
    };
  });
}

/** A per-client budget no run comes near: the limiter is consulted on every request and never refuses. */
const RATE_LIMIT: PluginEntry[] = [
  ['@switchyard/plugin-rate-limit', { perClient: { requestsPerSecond: 1_000_000, burst: 1_000_000 } }],
];

const RATE_LIMIT_PATHS = [
  { path: 'bare', label: 'gateway, no plugins' },
  { path: 'memory', label: 'rate-limit, in memory' },
  { path: 'redis', label: 'rate-limit, store.redis' },
] as const;

/** 5b: a 0 ms upstream and three gateways: no plugins, the limiter in memory, on `store.redis`. */
const deployRateLimit = (config: Config) =>
  deploy(config, 0, (redis) => ({
    bare: { name: 'gateway (bare)' },
    memory: { plugins: RATE_LIMIT, name: 'gateway (rate-limit, memory)' },
    redis: { plugins: RATE_LIMIT, name: 'gateway (rate-limit, redis)', config: replicaConfig(redis) },
  }));

/** Sessionless modern reads, directly to each gateway (no balancer). */
async function runRateLimit(config: Config, d: Awaited<ReturnType<typeof deployRateLimit>>, log: Log) {
  const { redis, upstream, gateways } = d;
  log(`replicas/rate-limit: redis ${redis.url}, upstream ${upstream.url}`);
  return Scope.with(async (scope) => {
    const paths = await gatewayReadPaths(
      gateways,
      async (gateway) => scope.own(new ModernHttpClient(gateway.url)),
      (client) => listedUris(client, upstream, config.resources),
    );
    const clients = await redisClients(redis.url);
    const levels = await measureReadPaths({
      what: 'replicas/rate-limit',
      paths,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream,
      redis,
      pairs: [
        ['memory', 'bare'],
        ['redis', 'memory'],
        ['redis', 'bare'],
      ],
      log,
    });
    return {
      plugins: RATE_LIMIT,
      paths: RATE_LIMIT_PATHS,
      redisClients: clients,
      levels,
      gatewayWarnings: warningsOf(gateways),
    };
  });
}

/** 5d: one gateway with `store.redis` (its own fresh Redis). */
const deploySessions = (config: Config) =>
  deploy(config, 0, (redis) => ({
    gateway: { name: 'gateway (sessions, store)', config: replicaConfig(redis) },
  }));

/**
 * K legacy sessions opened by plain POSTs, then one `resources/subscribe` on each, then a `DELETE` of each;
 * Redis's memory, keys and key shapes read before and after each step (once the keys stopped moving). If
 * the gateway keeps no session state in the store, the deltas are ~0 by design, not an error.
 */
async function runSessions(config: Config, d: Awaited<ReturnType<typeof deploySessions>>, log: Log) {
  const {
    redis,
    upstream,
    gateways: { gateway },
  } = d;
  const k = config.sessions;
  return Scope.with(async (scope) => {
    const agent = scope.own(new Agent({ keepAlive: true, maxSockets: 8 }));
    const uris = await listedUris(scope.own(new ModernHttpClient(gateway.url)), upstream, config.resources);
    log(`replicas/sessions: redis ${redis.url}, gateway ${gateway.url}: opening ${k} legacy sessions`);
    const before = await settledSnapshot(redis.url);
    const sessions = await openSessions(gateway.url, k, {
      agent,
      parallel: 8,
      clientName: (i) => `bench-session-${i}`,
    });
    const opened = await settledSnapshot(redis.url);
    let subscriptionsOk = 0;
    let subscribeError: string | undefined;
    await eachLimited(k, 8, async (i) => {
      try {
        await sessions[i]!.request({
          method: 'resources/subscribe',
          params: { uri: uris[i % uris.length]! },
        });
        subscriptionsOk += 1;
      } catch (error) {
        subscribeError ??= (error as Error).message;
      }
    });
    const subscribed = await settledSnapshot(redis.url);
    const closeStatuses = await closeSessions(sessions, 8);
    const closed = await settledSnapshot(redis.url);
    const per = (now: number, then: number) => (now - then) / k;
    return {
      sessions: k,
      before,
      opened,
      subscribed,
      closed,
      keyBytesPerSession: per(opened.keyBytes, before.keyBytes),
      bytesPerSession: per(opened.usedMemory, before.usedMemory),
      keysPerSession: per(opened.keys, before.keys),
      keyBytesPerSubscription: per(subscribed.keyBytes, opened.keyBytes),
      bytesPerSubscription: per(subscribed.usedMemory, opened.usedMemory),
      keysPerSubscription: per(subscribed.keys, opened.keys),
      subscriptionsOk,
      subscribeError,
      closeStatuses,
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  });
}

/** Runs the parts into `result` (filled as they finish, so a failure keeps what was measured). */
export async function runReplicasBenchmark(config: Config, log: Log, result: ReplicasResult = { config }) {
  const missing = redisMissing() ?? haproxyMissing();
  if (missing) {
    result.skipped = missing;
    log(`replicas: skipped: ${missing}`);
    return result;
  }
  log('replicas: starting 3 redis-servers, 3 upstreams, 7 gateways and 2 HAProxy');
  const deployments = await Promise.allSettled([
    deploySharedCache(config),
    deployRateLimit(config),
    deploySessions(config),
  ]);
  try {
    const [shared, limit, sessions] = deployments.map((d) => {
      if (d.status === 'rejected') throw d.reason;
      return d.value;
    }) as [
      Awaited<ReturnType<typeof deploySharedCache>>,
      Awaited<ReturnType<typeof deployRateLimit>>,
      Awaited<ReturnType<typeof deploySessions>>,
    ];
    result.sharedCache = await runSharedCache(config, shared, log);
    await shared.scope.close();
    result.rateLimit = await runRateLimit(config, limit, log);
    await limit.scope.close();
    result.sessionMemory = await runSessions(config, sessions, log);
  } finally {
    await Promise.allSettled(
      deployments.map((d) => (d.status === 'fulfilled' ? d.value.scope.close() : undefined)),
    );
  }
  return result;
}

/** The section's result: skipped (with why) or its parts (each missing if the run failed before it). */
export interface ReplicasResult {
  config: Config;
  skipped?: string;
  sharedCache?: Awaited<ReturnType<typeof runSharedCache>>;
  rateLimit?: Awaited<ReturnType<typeof runRateLimit>>;
  sessionMemory?: Awaited<ReturnType<typeof runSessions>>;
}

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
      table(
        [
          'after',
          'keys',
          'Δ keys/session',
          'key bytes',
          'Δ key B/session',
          'used_memory',
          'Δ used B/session',
        ],
        [
          snapshotRow('(start)', m.before, m.before, k),
          snapshotRow(`${k} sessions opened`, m.opened, m.before, k),
          snapshotRow('+1 subscription each', m.subscribed, m.opened, k),
          snapshotRow('all DELETEd', m.closed, m.before, k),
        ],
        'lrrrrrr',
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
