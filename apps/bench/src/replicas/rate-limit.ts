import { ModernHttpClient } from '@switchyard/testkit/mcp';
import { type Log, type PluginEntry, replicaConfig, Scope, warningsOf } from '../harness.js';
import { gatewayReadPaths, measureReadPaths } from '../read-paths.js';
import type { Sizes } from '../sizes.js';
import { deploy, listedUris, redisClients } from './deploy.js';

type Config = Sizes['replicas'];

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
export const deployRateLimit = (config: Config) =>
  deploy(config, 0, (redis) => ({
    bare: { name: 'gateway (bare)' },
    memory: { plugins: RATE_LIMIT, name: 'gateway (rate-limit, memory)' },
    redis: { plugins: RATE_LIMIT, name: 'gateway (rate-limit, redis)', config: replicaConfig(redis) },
  }));

/** Sessionless modern reads, directly to each gateway (no balancer). */
export async function runRateLimit(config: Config, d: Awaited<ReturnType<typeof deployRateLimit>>, log: Log) {
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
