/**
 * 5d. What legacy sessions cost in Redis: one gateway with `store.redis` on a fresh redis-server; K
 * sessions opened by plain POSTs (`initialize` + `notifications/initialized`, 2025-11-25), then one
 * `resources/subscribe` on each, then a `DELETE` of each. Redis's `used_memory`, key count and key shapes
 * are read before and after each step (once the key count stopped moving). If the gateway keeps no
 * session state in the store yet, the deltas are ~0 by design, not an error.
 */
import { Agent } from 'node:http';
import {
  closeSessions,
  eachLimited,
  type LegacyHttpClient,
  ModernHttpClient,
  openSessions,
} from '@switchyard/testkit/mcp';
import type { RedisServer } from '@switchyard/testkit/process';
import { type Gateway, ownUpstream, startGateway, Teardown, type Upstream } from '../services.js';
import { listedUris, ownRedis, replicaConfig } from './deployment.js';
import type { ReplicasConfig } from './model.js';
import { settledSnapshot } from './redis-probe.js';

/** Sessions opened (and requests sent) at once. */
const CONCURRENCY = 8;

/** The processes of this part, started and ready: a fresh Redis is this part's alone. */
export interface SessionMemoryDeployment {
  redis: RedisServer;
  upstream: Upstream;
  gateway: Gateway;
  teardown: Teardown;
}

/** Starts a fresh Redis, an upstream and one gateway with `store.redis`. */
export function deploySessionMemory(config: ReplicasConfig): Promise<SessionMemoryDeployment> {
  return new Teardown().guard(async (teardown) => {
    const [redis, upstream] = await Promise.all([
      ownRedis(teardown),
      ownUpstream({ name: 'a', resources: config.resources, payloadBytes: config.payloadBytes }, teardown),
    ]);
    const gateway = await startGateway([upstream], {
      name: 'gateway (sessions, store)',
      config: replicaConfig(redis),
    });
    teardown.add(() => gateway.proc.stop());
    return { redis, upstream, gateway, teardown };
  });
}

export async function runSessionMemoryBenchmark(
  config: ReplicasConfig,
  d: SessionMemoryDeployment,
  log: (message: string) => void,
) {
  const { redis, upstream, gateway } = d;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let sessions: LegacyHttpClient[] = [];
  try {
    const lister = new ModernHttpClient(gateway.url);
    const uris = await listedUris(lister, upstream, config.resources).finally(() => lister.close());
    const k = config.sessions;
    log(`replicas/sessions: redis ${redis.url}, gateway ${gateway.url}: opening ${k} legacy sessions`);

    const before = await settledSnapshot(redis.url);
    sessions = await openSessions(gateway.url, k, {
      agent,
      parallel: CONCURRENCY,
      clientName: (i) => `bench-session-${i}`,
    });
    const opened = await settledSnapshot(redis.url);

    let subscriptionsOk = 0;
    let subscribeError: string | undefined;
    await eachLimited(k, CONCURRENCY, async (i) => {
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

    const closeStatuses = await closeSessions(sessions.splice(0), CONCURRENCY);
    const closed = await settledSnapshot(redis.url);

    const result = {
      sessions: k,
      before,
      opened,
      subscribed,
      closed,
      keyBytesPerSession: (opened.keyBytes - before.keyBytes) / k,
      bytesPerSession: (opened.usedMemory - before.usedMemory) / k,
      keysPerSession: (opened.keys - before.keys) / k,
      keyBytesPerSubscription: (subscribed.keyBytes - opened.keyBytes) / k,
      bytesPerSubscription: (subscribed.usedMemory - opened.usedMemory) / k,
      keysPerSubscription: (subscribed.keys - opened.keys) / k,
      subscriptionsOk,
      subscribeError,
      closeStatuses,
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
    log(
      `replicas/sessions: ${k} sessions: ${result.keyBytesPerSession.toFixed(0)} B of keys ` +
        `(${result.bytesPerSession.toFixed(0)} B used_memory) and ${result.keysPerSession.toFixed(2)} keys each; ` +
        `one subscription each: +${result.keyBytesPerSubscription.toFixed(0)} B of keys, ` +
        `+${result.keysPerSubscription.toFixed(2)} keys (${subscriptionsOk}/${k} ok); after DELETE: ` +
        `${closed.keys} keys, used_memory ${closed.usedMemory}`,
    );
    return result;
  } finally {
    await Promise.allSettled(sessions.map((s) => s.close()));
    agent.destroy();
  }
}
