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
import { type E2eGateway, runE2e } from './e2e.js';
import { benchGrant } from './grant.js';
import { IDENTITY, type KeeperStore, measureKeeper } from './keeper.js';

export { renderCredentials } from './render.js';

export type CredentialsConfig = Sizes['credentials'];

export interface CredentialsResult {
  config: CredentialsConfig;
  /** Characters of the seeded access token (a JWT-sized one). */
  accessTokenChars: number;
  /** Why the Redis rows are missing (redis-server not installed); absent when they ran. */
  redisSkipped?: string;
  /** 10a: per store, per concurrency, `store.get` and `token` (compared with it). */
  keeper: KeeperStore[];
  /** 10b: per gateway (Redis, then memory), per concurrency, the static and vault paths compared. */
  e2e: E2eGateway[];
  /** Load average at the start, after each part and at the end of the section. */
  loadavg: { start: number[]; keeper: number[]; end: number[] };
}

export async function runCredentialsBenchmark(
  config: CredentialsConfig,
  log: (message: string) => void,
): Promise<CredentialsResult> {
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
