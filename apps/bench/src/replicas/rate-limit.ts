/**
 * 5b. The rate limiter's per-request cost: three gateways in front of one 0 ms upstream, no cache (every
 * read reaches the upstream, so the request is cheap and the limiter's share visible):
 * - `bare`: no plugins;
 * - `memory`: `@switchyard/plugin-rate-limit` with a per-client budget far above the load, no store
 *   (in-memory token buckets);
 * - `redis`: the same plugin and options, with `store.redis` (whatever limiter main has when it runs:
 *   the shared Redis limiter once the plugin uses the store).
 * Each read is a sessionless modern `resources/read`, directly to the gateway (no balancer).
 */

import { ModernHttpClient } from '@switchyard/testkit/mcp';
import type { RedisServer } from '@switchyard/testkit/process';
import { measureReadPaths, type ReadPath } from '../read-paths.js';
import {
  type Gateway,
  ownUpstream,
  type PluginEntry,
  startGateways,
  Teardown,
  type Upstream,
  warningsOf,
} from '../services.js';
import { listedUris, ownRedis, replicaConfig } from './deployment.js';
import type { PathInfo, ReplicasConfig } from './model.js';
import { redisCounters } from './redis-probe.js';

type RateLimitPath = 'bare' | 'memory' | 'redis';

export const RATE_LIMIT_PATHS: PathInfo[] = [
  { path: 'bare', label: 'gateway, no plugins' },
  { path: 'memory', label: 'rate-limit, in memory' },
  { path: 'redis', label: 'rate-limit, store.redis' },
];

/** [path, baseline]: the limiter in memory vs none, on Redis vs in memory (the number asked), on Redis vs none. */
const PAIRS = [
  ['memory', 'bare'],
  ['redis', 'memory'],
  ['redis', 'bare'],
] as const;

/** A per-client budget no run comes near: the limiter is consulted on every request and never refuses. */
const PLUGINS: PluginEntry[] = [
  ['@switchyard/plugin-rate-limit', { perClient: { requestsPerSecond: 1_000_000, burst: 1_000_000 } }],
];

/** The processes of this part, started and ready. */
export interface RateLimitDeployment {
  redis: RedisServer;
  upstream: Upstream;
  gateways: Record<RateLimitPath, Gateway>;
  teardown: Teardown;
}

/** Starts Redis, the 0 ms upstream and the three gateways. */
export function deployRateLimit(config: ReplicasConfig): Promise<RateLimitDeployment> {
  return new Teardown().guard(async (teardown) => {
    const [redis, upstream] = await Promise.all([
      ownRedis(teardown),
      ownUpstream({ name: 'a', resources: config.resources, payloadBytes: config.payloadBytes }, teardown),
    ]);
    const gateways = await startGateways(
      upstream,
      {
        bare: { name: 'gateway (bare)' },
        memory: { plugins: PLUGINS, name: 'gateway (rate-limit, memory)' },
        redis: { plugins: PLUGINS, name: 'gateway (rate-limit, redis)', config: replicaConfig(redis) },
      },
      teardown,
    );
    return { redis, upstream, gateways, teardown };
  });
}

export async function runRateLimitBenchmark(
  config: ReplicasConfig,
  d: RateLimitDeployment,
  log: (message: string) => void,
) {
  const { redis, upstream, gateways } = d;
  log(
    `replicas/rate-limit: redis ${redis.url}, upstream ${upstream.url}, ` +
      RATE_LIMIT_PATHS.map(({ path }) => `${path} ${gateways[path as RateLimitPath].url}`).join(', '),
  );
  const clients: ModernHttpClient[] = [];
  try {
    const paths: ReadPath[] = [];
    for (const { path } of RATE_LIMIT_PATHS) {
      const gateway = gateways[path as RateLimitPath];
      const client = new ModernHttpClient(gateway.url);
      clients.push(client);
      const uris = await listedUris(client, upstream, config.resources);
      paths.push({ path, client, uris, gateways: [gateway.proc], next: 0 });
    }
    const redisClients = (await redisCounters(redis.url)).clients - 1;
    const levels = await measureReadPaths({
      what: 'replicas/rate-limit',
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
      paths: RATE_LIMIT_PATHS,
      redisClients,
      levels,
      gatewayWarnings: warningsOf(gateways),
    };
  } finally {
    for (const c of clients) c.close();
  }
}
