/**
 * The pieces a replicas part starts besides its upstream and gateways (services.ts), each added to the
 * part's `Teardown`: a redis-server and HAProxy (also registered with `children.own`, so main's cleanup
 * stops them on any exit), and the config that makes gateways replicas (`store.redis`, `cursorSecret`).
 */
import type { ModernHttpClient } from '@switchyard/testkit/mcp';
import { type Balancer, type RedisServer, startBalancer, startRedis } from '@switchyard/testkit/process';
import { RESOURCES, walk } from '../lists.js';
import { children, type Gateway, type Teardown, type Upstream } from '../services.js';

/** The secret every replica of a part shares (cursors and sealed ids minted by one are valid on all). */
const CURSOR_SECRET = 'switchyard-bench-replicas-0123456789abcdef';

/** The config keys that make gateways replicas of one deployment: `store.redis` and `cursorSecret`. */
export function replicaConfig(redis: RedisServer, keyPrefix = 'bench:'): Record<string, unknown> {
  return { cursorSecret: CURSOR_SECRET, store: { redis: { url: redis.url, keyPrefix } } };
}

/** A fresh redis-server on an ephemeral port, added to `teardown` (and to main's cleanup, in case). */
export async function ownRedis(teardown: Teardown): Promise<RedisServer> {
  const redis = children.own(await startRedis());
  teardown.add(() => redis.stop());
  return redis;
}

/** HAProxy round-robin over `gateways`, added to `teardown` (and to main's cleanup, in case). */
export async function ownBalancer(
  gateways: readonly Gateway[],
  teardown: Teardown,
): Promise<Balancer & { mcpUrl: string }> {
  const balancer = children.own(await startBalancer(gateways.map((g) => ({ port: portOf(g) }))));
  teardown.add(() => balancer.stop());
  return Object.assign(balancer, { mcpUrl: `${balancer.url}${new URL(gateways[0]!.url).pathname}` });
}

export function portOf(gateway: Gateway): number {
  return Number(new URL(gateway.url).port);
}

/**
 * The resource URIs a gateway exposes, listed with the modern client; checks there are `resources` of
 * them, each prefixed with the upstream's name.
 */
export async function listedUris(
  client: ModernHttpClient,
  upstream: Upstream,
  resources: number,
): Promise<string[]> {
  const { items } = await walk(client, RESOURCES);
  if (items.length !== resources || items.some((u) => !u.startsWith(`${upstream.name}+`))) {
    throw new Error(
      `replicas: ${client.url} lists ${items.length} resources (first: ${items.slice(0, 3).join(', ')}), ` +
        `expected ${resources} of upstream ${upstream.name}`,
    );
  }
  return items;
}
