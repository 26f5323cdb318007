/**
 * Section 5, replicas (`--only replicas`; DESIGN §12): what running several gateway replicas behind a
 * load balancer, sharing one Redis, buys and costs on this box. Config-driven: it runs the gateway CLI
 * with `store.redis`, so it measures whatever sharing main has when it runs.
 *
 * a. (shared-cache.ts) reads through HAProxy to one vs two replicas with the cache plugin, and whether
 *    the second replica's reads are served by the cache the first filled (upstream read count);
 * b. (rate-limit.ts) the rate limiter's per-request cost in memory vs with `store.redis`;
 * c. (shared-cache.ts, same rounds as a) the latency the balancer and the store add over one gateway;
 * d. (session-memory.ts) Redis memory and keys per legacy session and per subscription.
 * Every part's processes start together up front (starting gateways is most of a quick run), then the
 * parts measure one after the other, each stopping its processes when done; all are stopped whatever
 * happens. Skipped, with the reason, when redis-server or haproxy is not installed.
 */
import { haproxyMissing, redisMissing } from '@switchyard/testkit/process';
import type { ReplicasConfig, ReplicasResult } from './model.js';
import { deployRateLimit, runRateLimitBenchmark } from './rate-limit.js';
import { deploySessionMemory, runSessionMemoryBenchmark } from './session-memory.js';
import { deploySharedCache, runSharedCacheBenchmark } from './shared-cache.js';

export * from './model.js';
export { RATE_LIMIT_PATHS } from './rate-limit.js';
export { SHARED_CACHE_PATHS } from './shared-cache.js';

/** Why the section cannot run on this box, or undefined when it can. */
export function replicasMissing(): string | undefined {
  return redisMissing() ?? haproxyMissing();
}

/** The value of a settled start, or its error thrown (after every start settled). */
function started<T>(outcome: PromiseSettledResult<T>): T {
  if (outcome.status === 'rejected') throw outcome.reason;
  return outcome.value;
}

/** Runs the parts into `result` (filled as they finish, so a failure keeps what was measured). */
export async function runReplicasBenchmark(
  config: ReplicasConfig,
  log: (message: string) => void,
  result: ReplicasResult = { config },
): Promise<ReplicasResult> {
  const missing = replicasMissing();
  if (missing) {
    result.skipped = missing;
    log(`replicas: skipped: ${missing}`);
    return result;
  }
  log('replicas: starting 3 redis-servers, 3 upstreams, 7 gateways and 2 HAProxy');
  const deployments = await Promise.allSettled([
    deploySharedCache(config),
    deployRateLimit(config),
    deploySessionMemory(config),
  ]);
  try {
    const [shared, limit, sessions] = [
      started(deployments[0]),
      started(deployments[1]),
      started(deployments[2]),
    ];
    result.sharedCache = await runSharedCacheBenchmark(config, shared, log);
    await shared.teardown.run();
    result.rateLimit = await runRateLimitBenchmark(config, limit, log);
    await limit.teardown.run();
    result.sessionMemory = await runSessionMemoryBenchmark(config, sessions, log);
  } finally {
    await Promise.allSettled(
      deployments.map((d) => (d.status === 'fulfilled' ? d.value.teardown.run() : undefined)),
    );
  }
  return result;
}
