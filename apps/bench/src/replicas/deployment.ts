/**
 * The pieces a replicas part starts, each added to the part's `Teardown`: a redis-server and HAProxy
 * (also registered with `children.own`, so main's cleanup stops them on any exit), a testkit upstream,
 * gateways started together in front of it, each with its own plugins and, for replicas, the same
 * `store.redis` and `cursorSecret`.
 */
import type { ModernHttpClient } from '@switchyard/testkit/mcp';
import { type Balancer, type RedisServer, startBalancer, startRedis } from '@switchyard/testkit/process';
import { RESOURCES, walk } from '../lists.js';
import {
  allStarted,
  children,
  type Gateway,
  type GatewayOptions,
  startGateway,
  startUpstream,
  type Upstream,
  type UpstreamSpec,
} from '../services.js';

/**
 * What a part started, stopped together: `add` a stop function per process or resource as it starts;
 * `run()` calls them all (each once, failures ignored) and resolves when every one settled.
 */
export class Teardown {
  readonly #steps: (() => unknown)[] = [];

  add(step: () => unknown): void {
    this.#steps.push(step);
  }

  async run(): Promise<void> {
    const steps = this.#steps.splice(0);
    await Promise.allSettled(steps.map(async (step) => step()));
  }

  /** Runs `start`; if it throws, stops what it had started before rethrowing. */
  async guard<T>(start: (teardown: Teardown) => Promise<T>): Promise<T> {
    try {
      return await start(this);
    } catch (error) {
      await this.run();
      throw error;
    }
  }
}

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

/** A testkit upstream, added to `teardown`. */
export async function ownUpstream(spec: UpstreamSpec, teardown: Teardown): Promise<Upstream> {
  const upstream = await startUpstream(spec);
  teardown.add(() => upstream.proc.stop());
  return upstream;
}

export function portOf(gateway: Gateway): number {
  return Number(new URL(gateway.url).port);
}

/**
 * Starts one gateway per entry of `specs`, all at once, in front of `upstream`, each added to `teardown`;
 * fails (after they all settled, the started ones stopped) if any did not start.
 */
export async function startGateways<K extends string>(
  upstream: Upstream,
  specs: Record<K, GatewayOptions>,
  teardown: Teardown,
): Promise<Record<K, Gateway>> {
  const names = Object.keys(specs) as K[];
  const started = await allStarted(names.map((n) => startGateway([upstream], specs[n])));
  for (const gateway of started) teardown.add(() => gateway.proc.stop());
  return Object.fromEntries(names.map((n, i) => [n, started[i]!])) as Record<K, Gateway>;
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
