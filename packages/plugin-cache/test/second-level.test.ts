import { openStore, type Store, silentLogger } from '@switchyard/core';
import { type RedisServer, redisMissing, startRedis } from '@switchyard/testkit/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheOptions } from '../src/index.js';
import { CACHE_METRICS } from '../src/metrics.js';
import { SecondLevel } from '../src/second-level.js';
import { Cleanup, connect, eventually, gatewayWith, identity, readText, upstream } from './support.js';

// Two "replicas": two Gateways, each with the cache over its own RedisStore connection to one real
// redis-server, in front of one testkit upstream over HTTP. The second level (L2) is shared through
// Redis; invalidations travel over its pub/sub.

const missing = redisMissing();
if (missing) console.warn(`skipping the cache's second-level tests: ${missing}`);

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const alice = identity('alice');
const bob = identity('bob');
const R0 = 'docs+test://docs/r/0';
const R1 = 'docs+test://docs/r/1';
const PREFIX = 'plugin:cache:';

let redis: RedisServer;
beforeEach(async () => {
  if (missing) return;
  redis = await startRedis();
  cleanup.add(() => redis.stop({ kill: true }));
});

/** One replica: a gateway whose cache has its own store connection to the shared Redis. */
async function replica(
  upstreamUrl: string,
  options: CacheOptions = {},
  onUnavailable: 'local' | 'refuse' = 'local',
) {
  const store = await openStore({ redis: { url: redis.url, onUnavailable } }, silentLogger);
  cleanup.add(() => store.dispose());
  const h = await gatewayWith(cleanup, [{ name: 'docs', url: upstreamUrl }], options, store.scoped(PREFIX));
  const stats = () => h.hooks.stats?.() ?? {};
  return { ...h, store, stats };
}

/** A bare second level on its own store connection (a replica without a gateway). */
async function otherReplica(): Promise<SecondLevel> {
  const store = await openStore({ redis: { url: redis.url } }, silentLogger);
  cleanup.add(() => store.dispose());
  const l2 = await SecondLevel.open({
    store: store.scoped(PREFIX),
    maxBytes: 1_000_000,
    ttlMs: 60_000,
    onRemote: () => {},
    logger: silentLogger,
  });
  if (!l2) throw new Error('no second level on a shared store');
  cleanup.add(() => l2.close());
  return l2;
}

/** The bytes of every L2 entry in Redis, read with the driver's own client (the test's check only). */
async function entryBytes(store: Store): Promise<number> {
  const native = store.native;
  if (!native) throw new Error('no native client');
  const client = native.client as {
    keys(pattern: string): Promise<string[]>;
    strlen(key: string): Promise<number>;
  };
  const keys = await client.keys(`${native.prefix}${PREFIX}e:*`);
  const sizes = await Promise.all(keys.map((key) => client.strlen(key)));
  return sizes.reduce((sum, size) => sum + size, 0);
}

describe.skipIf(missing)('second level in Redis', () => {
  it('serves a read on one replica from what another replica read (the upstream read once)', async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 3 });
    const a = await replica(up.url);
    const b = await replica(up.url);
    expect(await readText(await connect(cleanup, a.gateway, alice), R0)).toBe('resource 0');
    const onB = await connect(cleanup, b.gateway, bob);
    expect(await readText(onB, R0)).toBe('resource 0');
    expect(await readText(onB, R0)).toBe('resource 0');
    expect(up.reads()).toBe(1);
    expect(a.statuses).toEqual(['miss']);
    expect(b.statuses).toEqual(['hit', 'hit']); // L2, then L1
    expect(b.stats()).toMatchObject({ l2Hits: 1, entries: 1 });
    expect(a.stats()).toMatchObject({ l2Writes: 1 });
  });

  it("an update heard on one replica evicts the other's L1 copy and the L2 entry", async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 3 });
    const a = await replica(up.url);
    // B holds no upstream subscription: only A hears the update, B learns it through Redis.
    const b = await replica(up.url, { coherent: false });
    const onA = await connect(cleanup, a.gateway, alice);
    const onB = await connect(cleanup, b.gateway, alice);
    await readText(onA, R0);
    await readText(onB, R0);
    await readText(onB, R0);
    expect(b.statuses).toEqual(['hit', 'hit']);
    expect(up.server.stats.subscribed['test://docs/r/0']).toBe(1); // A's watch only

    up.server.setText('test://docs/r/0', 'v2');
    await up.server.triggerUpdated('test://docs/r/0');
    await eventually(
      () => b.meter.count(CACHE_METRICS.evictions, { reason: 'remote' }) === 1,
      "A's invalidation evicting B's copy",
    );
    // B's L1 and the L2 entry are gone: B reads upstream, and nobody is served the old content.
    expect(await readText(onB, R0)).toBe('v2');
    expect(b.statuses.slice(2)).toEqual(['miss']);
    expect(await readText(onA, R0)).toBe('v2');
    // A gets B's fresh entry from L2 — unless A's own watch of the URI was released meanwhile (its L1
    // entry is gone), which renews the URI's token and costs one more upstream read: never a stale one.
    expect(['hit', 'miss']).toContain(a.statuses[1]);
    expect(up.reads()).toBe(a.statuses[1] === 'hit' ? 2 : 3);
  });

  it('does not serve an L2 entry stored by a read that an invalidation overtook', async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 3 });
    const a = await replica(up.url, { coherent: false });
    const b = await replica(up.url, { coherent: false });
    let release: () => void = () => {};
    a.hold.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    cleanup.add(release);
    const first = readText(await connect(cleanup, a.gateway, alice), R0);
    // A looked in L2 (a miss, its tag taken) and read 'resource 0' upstream; the answer is held.
    await eventually(() => a.hold.waiting === 1, "A's read held after its upstream answer");
    up.server.setText('test://docs/r/0', 'v2');
    // A third replica invalidates the URI in the store, and A has not heard its message yet.
    const c = await otherReplica();
    await c.unwatched(R0);
    a.hold.gate = undefined;
    release();
    expect(await first).toBe('resource 0');
    expect(a.stats()).toMatchObject({ l2Writes: 1 }); // the stale answer did reach Redis…
    // …under the tag it was read with, which is no longer current: B is not served it.
    expect(await readText(await connect(cleanup, b.gateway, bob), R0)).toBe('v2');
    expect(b.statuses).toEqual(['miss']);
  });

  it("keeps private entries per identity: one identity's entry is never another's hit", async () => {
    const up = await upstream(cleanup, {
      name: 'docs',
      resources: 3,
      modern: true,
      cacheTtlMs: 60_000,
      cacheScope: 'private',
    });
    const a = await replica(up.url);
    const b = await replica(up.url);
    await readText(await connect(cleanup, a.gateway, alice), R0);
    await readText(await connect(cleanup, b.gateway, bob), R0);
    expect(up.reads()).toBe(2);
    await readText(await connect(cleanup, b.gateway, alice), R0);
    expect(up.reads()).toBe(2);
    expect(b.statuses).toEqual(['miss', 'hit']);
  });

  it('keeps the bytes held in Redis within l2MaxBytes', async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 10, payloadBytes: 1000 });
    const a = await replica(up.url, { l2MaxBytes: 5000 });
    const b = await replica(up.url, { l2MaxBytes: 5000 });
    const onA = await connect(cleanup, a.gateway, alice);
    const onB = await connect(cleanup, b.gateway, alice);
    for (let i = 0; i < 10; i++) await readText(i % 2 === 0 ? onA : onB, `docs+test://docs/r/${i}`);
    const written = Number(a.stats().l2Writes) + Number(b.stats().l2Writes);
    const refused = Number(a.stats().l2Refused) + Number(b.stats().l2Refused);
    expect(written).toBeGreaterThan(0);
    expect(written + refused).toBe(10);
    expect(refused).toBeGreaterThan(0);
    expect(await entryBytes(a.store)).toBeLessThanOrEqual(5000);
    // The first level is bounded on its own (maxBytes): everything fits there.
    expect(a.stats().entries).toBe(5);
  });

  it('reads from the upstream while Redis is down, and uses L2 again once it is back', async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 200 });
    const a = await replica(up.url);
    const b = await replica(up.url);
    const onA = await connect(cleanup, a.gateway, alice);
    const onB = await connect(cleanup, b.gateway, alice);
    await readText(onA, R0);
    await redis.stop({ kill: true });
    await eventually(() => !a.store.available && !b.store.available, 'both replicas to lose Redis');
    expect(a.stats().entries).toBe(0); // L1 cleared: invalidations may be missed from now on
    expect(await readText(onB, R0)).toBe('resource 0');
    expect(await readText(onB, R0)).toBe('resource 0'); // 'local': L1 alone
    expect(await readText(onA, R1)).toBe('resource 1');
    expect(up.reads()).toBe(3);
    expect(b.statuses).toEqual(['miss', 'hit']);

    await redis.restart();
    await eventually(() => a.store.available && b.store.available, 'both replicas to rejoin Redis');
    expect(b.stats().entries).toBe(0); // cleared again
    // Rejoining settles a moment after commands work again (a replica that missed invalidations renews
    // the shared cache's generations once, which may void what was written just before): soon, what A
    // reads is served to B from L2, the upstream read once.
    let next = 2;
    await eventually(async () => {
      const uri = `docs+test://docs/r/${next}`;
      const before = up.reads();
      expect(await readText(onA, uri)).toBe(`resource ${next}`);
      expect(await readText(onB, uri)).toBe(`resource ${next}`);
      next += 1;
      return up.reads() === before + 1 && b.statuses.at(-1) === 'hit';
    }, 'a read through A to be served to B from the second level');
  });

  it("with onUnavailable 'refuse', reads go to the upstream (no hits) while Redis is down", async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 3 });
    const a = await replica(up.url, {}, 'refuse');
    const onA = await connect(cleanup, a.gateway, alice);
    await readText(onA, R0);
    await readText(onA, R0);
    expect(a.statuses).toEqual(['miss', 'hit']);
    await redis.stop({ kill: true });
    await eventually(() => !a.store.available, 'the replica to lose Redis');
    expect(await readText(onA, R0)).toBe('resource 0');
    expect(await readText(onA, R0)).toBe('resource 0');
    expect(up.reads()).toBe(3);
    expect(a.statuses.slice(2)).toEqual(['bypass', 'bypass']);
  });

  it('a reload (the instance closing) invalidates every replica', async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 3 });
    const a = await replica(up.url);
    const b = await replica(up.url);
    await readText(await connect(cleanup, a.gateway, alice), R1);
    const onB = await connect(cleanup, b.gateway, alice);
    await readText(onB, R1);
    expect(b.statuses).toEqual(['hit']);
    await a.hooks.close?.();
    await eventually(
      () => b.meter.count(CACHE_METRICS.evictions, { reason: 'remote' }) === 1,
      "A's flush reaching B",
    );
    expect(await readText(onB, R1)).toBe('resource 1');
    expect(b.statuses).toEqual(['hit', 'miss']);
    expect(up.reads()).toBe(2);
  });
});

describe('without a shared store', () => {
  it('has no second level (the figures say so)', async () => {
    const up = await upstream(cleanup, { name: 'docs', resources: 1 });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    await readText(await connect(cleanup, h.gateway, alice), 'docs+test://docs/r/0');
    expect(h.hooks.stats?.()).toEqual({ bytes: expect.any(Number), entries: 1, maxBytes: 64 * 1024 * 1024 });
  });
});
