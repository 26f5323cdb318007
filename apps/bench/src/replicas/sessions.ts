/** 5d: Redis memory and keys per legacy session and per subscription. */
import { Agent } from 'node:http';
import { closeSessions, eachLimited, ModernHttpClient, openSessions } from '@switchyard/testkit/mcp';
import { type Log, replicaConfig, Scope } from '../harness.js';
import type { Sizes } from '../sizes.js';
import { deploy, listedUris } from './deploy.js';
import { settledSnapshot } from './redis-probe.js';

type Config = Sizes['replicas'];

/** 5d: one gateway with `store.redis` (its own fresh Redis). */
export const deploySessions = (config: Config) =>
  deploy(config, 0, (redis) => ({
    gateway: { name: 'gateway (sessions, store)', config: replicaConfig(redis) },
  }));

/**
 * K legacy sessions opened by plain POSTs, then one `resources/subscribe` on each, then a `DELETE` of each;
 * Redis's memory, keys and key shapes read before and after each step (once the keys stopped moving). If
 * the gateway keeps no session state in the store, the deltas are ~0 by design, not an error.
 */
export async function runSessions(config: Config, d: Awaited<ReturnType<typeof deploySessions>>, log: Log) {
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
