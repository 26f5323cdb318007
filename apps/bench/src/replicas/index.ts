import { haproxyMissing, redisMissing } from '@switchyard/testkit/process';
import type { Log } from '../harness.js';
import type { Sizes } from '../sizes.js';
import { deployRateLimit, runRateLimit } from './rate-limit.js';
import { deploySessions, runSessions } from './sessions.js';
import { deploySharedCache, runSharedCache } from './shared-cache.js';

export { renderReplicas } from './render.js';

type Config = Sizes['replicas'];

/** Runs the parts into `result` (filled as they finish, so a failure keeps what was measured). */
export async function runReplicasBenchmark(config: Config, log: Log, result: ReplicasResult = { config }) {
  const missing = redisMissing() ?? haproxyMissing();
  if (missing) {
    result.skipped = missing;
    log(`replicas: skipped: ${missing}`);
    return result;
  }
  log('replicas: starting 3 redis-servers, 3 upstreams, 7 gateways and 2 HAProxy');
  // Every part starts at once (one that fails to start stops what it had), then each runs in turn.
  const parts = [deploySharedCache(config), deployRateLimit(config), deploySessions(config)] as const;
  try {
    const [shared, limit, sessions] = await Promise.all(parts);
    result.sharedCache = await runSharedCache(config, shared, log);
    await shared.scope.close();
    result.rateLimit = await runRateLimit(config, limit, log);
    await limit.scope.close();
    result.sessionMemory = await runSessions(config, sessions, log);
  } finally {
    await Promise.allSettled(parts.map(async (part) => (await part).scope.close()));
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
