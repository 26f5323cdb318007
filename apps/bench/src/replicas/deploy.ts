import type { ModernHttpClient } from '@switchyard/testkit/mcp';
import type { RedisServer } from '@switchyard/testkit/process';
import { type GatewayOptions, Scope, type Upstream } from '../harness.js';
import { LIST_KINDS, walk } from '../lists.js';
import type { Sizes } from '../sizes.js';
import { redisCounters } from './redis-probe.js';

type Config = Sizes['replicas'];

/** The resource URIs a gateway exposes (modern client); checks there are `resources`, all of `upstream`. */
export async function listedUris(client: ModernHttpClient, upstream: Upstream, resources: number) {
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
export const redisClients = async (url: string) => (await redisCounters(url)).clients - 1;

/**
 * A part's processes, started and ready: its own redis-server, an upstream (reads after `latencyMs`), the
 * gateways `specs` gives (given the Redis), and the part's scope, so a half-started part stops what it had.
 */
export function deploy<K extends string>(
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
