/**
 * Section 10, credentials (`--only credentials`; DESIGN §14): what reading each caller's own upstream
 * token from the vault costs per call, with the memory store and with a real Redis.
 *
 * a. (keeper.ts) in process: `TokenKeeper.token(identity, upstream)` for a stored grant that needs no
 *    refresh, beside the store's raw `get` of the sealed value, one call at a time and 16 concurrent;
 * b. (e2e.ts) `tools/call` through a real gateway to an upstream that checks bearer tokens: a static
 *    `headers.Authorization` vs `auth.user` with the caller's grant in the vault, rounds alternated.
 * Redis (a redis-server on an ephemeral port, started and stopped here) is skipped, with the reason, when
 * redis-server is not installed; the memory store always runs.
 */
import { loadavg } from 'node:os';
import { type RedisServer, redisMissing, startRedis } from '@switchyard/testkit/process';
import { children } from '../services.js';
import type { Sizes } from '../sizes.js';
import { runE2e } from './e2e.js';
import { benchGrant } from './grant.js';
import { IDENTITY, measureKeeper } from './keeper.js';

export { renderCredentials } from './render.js';

export type CredentialsConfig = Sizes['credentials'];

export type CredentialsResult = Awaited<ReturnType<typeof runCredentialsBenchmark>>;

export async function runCredentialsBenchmark(config: CredentialsConfig, log: (message: string) => void) {
  const start = loadavg();
  const redisSkipped = redisMissing();
  if (redisSkipped) log(`credentials: Redis rows skipped: ${redisSkipped}`);
  let redis: RedisServer | undefined;
  try {
    if (!redisSkipped) redis = children.own(await startRedis());
    const keeper = [await measureKeeper(config.keeper, 'memory', undefined, log)];
    if (redis) keeper.push(await measureKeeper(config.keeper, 'redis', redis, log));
    const afterKeeper = loadavg();
    const e2e = await runE2e(config.e2e, redis, log);
    return {
      config,
      accessTokenChars: benchGrant(IDENTITY.id).accessToken.length,
      ...(redisSkipped ? { redisSkipped } : {}),
      keeper,
      e2e,
      loadavg: { start, keeper: afterKeeper, end: loadavg() },
    };
  } finally {
    await redis?.stop();
  }
}
