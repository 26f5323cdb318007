/**
 * 5a + 5c. Reads through replicas sharing a cache: every gateway runs `@switchyard/plugin-cache`; replicas
 * A and B also share one redis-server (`store.redis`, one `cursorSecret`). Paths, all reading the same
 * URIs with the sessionless modern client:
 * - `solo`: a gateway without store, directly (the single-gateway baseline);
 * - `replica`: replica A directly (the store, no balancer);
 * - `one`: HAProxy in front of A alone (the balancer hop);
 * - `two`: HAProxy round-robin over A and B (the deployment).
 * Before timing, every URI is read once on A (each a miss), then once on B: the upstream's read count
 * during B's pass says whether B was served from the cache A filled (0) or read for itself. When a legacy
 * session opened through HAProxy → A + B works (the probe), two more paths read on legacy (2025-11-25)
 * sessions: `one-legacy` (HAProxy → A) and `two-legacy` (HAProxy → A + B: every other request lands on
 * the replica that does not own the session).
 */

import { Agent } from 'node:http';
import { LegacyHttpClient, ModernHttpClient, type RequestClient } from '@switchyard/testkit/mcp';
import type { Balancer, RedisServer } from '@switchyard/testkit/process';
import { measureReadPaths, type ReadPath, readPath, statsOf, upstreamCounters } from '../read-paths.js';
import {
  type Gateway,
  ownUpstream,
  type PluginEntry,
  startGateways,
  Teardown,
  type Upstream,
  warningsOf,
} from '../services.js';
import { listedUris, ownBalancer, ownRedis, replicaConfig } from './deployment.js';
import type { LegacyProbe, PathInfo, ReplicasConfig } from './model.js';
import { redisCounters } from './redis-probe.js';

/** The paths in their (rotated) round order, with their table labels. */
export const SHARED_CACHE_PATHS: PathInfo[] = [
  { path: 'solo', label: '1 gateway, no store, direct' },
  { path: 'replica', label: 'replica A (store), direct' },
  { path: 'one', label: 'HAProxy → A (store)' },
  { path: 'two', label: 'HAProxy → A + B (store)' },
  { path: 'one-legacy', label: 'HAProxy → A, legacy session' },
  { path: 'two-legacy', label: 'HAProxy → A + B, legacy session' },
];

/** What each comparison row isolates: [path, baseline]. */
const PAIRS = [
  ['two', 'one'],
  ['two', 'solo'],
  ['replica', 'solo'],
  ['one', 'replica'],
  ['two-legacy', 'one-legacy'],
  ['two-legacy', 'two'],
] as const;

const PLUGINS: PluginEntry[] = [['@switchyard/plugin-cache', {}]];

const WARM_CONCURRENCY = 8;

/**
 * Do legacy sessions work across replicas? One session opened through a round-robin balancer in front
 * of two replicas (so `initialize` and `notifications/initialized` land on different replicas), then a
 * few reads on it, each on the next replica. Without shared sessions the second POST is a 404.
 */
async function probeLegacyAcrossReplicas(
  url: string,
  uris: readonly string[],
  reads = 4,
): Promise<LegacyProbe> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probe: LegacyProbe = { reads, ok: 0, opened: false };
  let session: LegacyHttpClient | undefined;
  try {
    session = await LegacyHttpClient.open(url, { agent: agent, clientName: 'bench-legacy-probe' });
    probe.opened = true;
    for (let i = 0; i < reads; i++) {
      try {
        await session.request({ method: 'resources/read', params: { uri: uris[i % uris.length]! } });
        probe.ok += 1;
      } catch (error) {
        probe.firstError ??= (error as Error).message;
      }
    }
  } catch (error) {
    probe.firstError ??= `opening: ${(error as Error).message}`;
  } finally {
    await session?.close();
    agent.destroy();
  }
  return probe;
}

/** The processes of this part, started and ready. */
export interface SharedCacheDeployment {
  redis: RedisServer;
  upstream: Upstream;
  solo: Gateway;
  a: Gateway;
  b: Gateway;
  /** HAProxy → A, and HAProxy → A + B. */
  one: Balancer & { mcpUrl: string };
  two: Balancer & { mcpUrl: string };
  teardown: Teardown;
}

/** Starts Redis, the upstream, the three gateways and the two balancers. */
export function deploySharedCache(config: ReplicasConfig): Promise<SharedCacheDeployment> {
  return new Teardown().guard(async (teardown) => {
    const [redis, upstream] = await Promise.all([
      ownRedis(teardown),
      ownUpstream(
        {
          name: 'a',
          resources: config.resources,
          payloadBytes: config.payloadBytes,
          latencyMs: config.cacheUpstreamLatencyMs,
        },
        teardown,
      ),
    ]);
    const shared = replicaConfig(redis);
    const { solo, a, b } = await startGateways(
      upstream,
      {
        solo: { plugins: PLUGINS, name: 'gateway (solo, no store)' },
        a: { plugins: PLUGINS, name: 'replica A', config: shared },
        b: { plugins: PLUGINS, name: 'replica B', config: shared },
      },
      teardown,
    );
    const [one, two] = await Promise.all([ownBalancer([a], teardown), ownBalancer([a, b], teardown)]);
    return { redis, upstream, solo, a, b, one, two, teardown };
  });
}

/** Warms every gateway (recording the upstream reads of each pass), probes legacy sessions, measures. */
export async function runSharedCacheBenchmark(
  config: ReplicasConfig,
  d: SharedCacheDeployment,
  log: (message: string) => void,
) {
  const { redis, upstream, solo, a, b, one, two } = d;
  log(
    `replicas/shared-cache: redis ${redis.url}, upstream ${upstream.url} (${config.cacheUpstreamLatencyMs} ms ` +
      `per read), solo ${solo.url}, A ${a.url}, B ${b.url}, HAProxy → A ${one.mcpUrl}, HAProxy → A+B ${two.mcpUrl}`,
  );
  const clients: ModernHttpClient[] = [];
  const sessions: LegacyHttpClient[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const client = (url: string): ModernHttpClient => {
    const c = new ModernHttpClient(url);
    clients.push(c);
    return c;
  };
  try {
    const uris = await listedUris(client(a.url), upstream, config.resources);
    const path = (
      name: string,
      url: string,
      procs: readonly Gateway[],
      balancer?: Balancer,
      reader: RequestClient = client(url),
    ): ReadPath => ({
      path: name,
      client: reader,
      uris,
      gateways: procs.map((g) => g.proc),
      balancer: balancer?.proc,
      next: 0,
    });
    const paths = [
      path('solo', solo.url, [solo]),
      path('replica', a.url, [a]),
      path('one', one.mcpUrl, [a], one),
      path('two', two.mcpUrl, [a, b], two),
    ];
    const [soloPath, replicaPath] = paths as [ReadPath, ReadPath];
    const onB = path('b', b.url, [b]);

    // Warm: A cold, then B (shared cache: no upstream read), then the no-store gateway, then all again.
    const stats = statsOf(upstream);
    const reads = async (target: ReadPath): Promise<number> => {
      const before = (await upstreamCounters(stats)).reads;
      await readPath(target, uris.length, WARM_CONCURRENCY, config.payloadBytes);
      return (await upstreamCounters(stats)).reads - before;
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
    const legacy = await probeLegacyAcrossReplicas(two.mcpUrl, uris);
    log(
      `replicas/shared-cache: a legacy session through HAProxy → A+B: ${legacy.opened ? 'opened' : 'not opened'}, ` +
        `${legacy.ok}/${legacy.reads} reads ok${legacy.firstError ? ` (first error: ${legacy.firstError})` : ''}`,
    );
    if (legacy.opened && legacy.ok === legacy.reads) {
      for (const [name, url, procs, balancer] of [
        ['one-legacy', one.mcpUrl, [a], one],
        ['two-legacy', two.mcpUrl, [a, b], two],
      ] as const) {
        const session = await LegacyHttpClient.open(url, { agent: agent, clientName: `bench-${name}` });
        sessions.push(session);
        paths.push(path(name, url, procs, balancer, session));
      }
    }
    const redisClients = (await redisCounters(redis.url)).clients - 1;

    const levels = await measureReadPaths({
      what: 'replicas/shared-cache',
      paths,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream,
      redis,
      pairs: PAIRS,
      log,
    });
    return {
      plugins: PLUGINS,
      paths: SHARED_CACHE_PATHS,
      warmReadsA,
      secondReplicaUpstreamReads,
      warmReadsSolo,
      rehitUpstreamReads,
      legacy,
      redisClients,
      levels,
      gatewayWarnings: warningsOf({ solo, A: a, B: b }),
    };
  } finally {
    await Promise.allSettled(sessions.map((s) => s.close()));
    agent.destroy();
    for (const c of clients) c.close();
  }
}
