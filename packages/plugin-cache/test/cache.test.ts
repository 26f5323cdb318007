import { PluginError, setupPlugins, silentLogger } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import cachePlugin from '../src/index.js';
import { CACHE_METRICS } from '../src/metrics.js';
import {
  Cleanup,
  connect,
  eventually,
  gatewayWith,
  handleRead,
  identity,
  manualGate,
  readText,
  upstream,
} from './support.js';

// The cache in a real Gateway, in front of real testkit upstreams over HTTP on loopback, read by
// official SDK clients on in-memory sessions. Upstream read counts come from the testkit's stats.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const alice = identity('alice');
const bob = identity('bob');
const R0 = 'docs+test://docs/r/0';
const R1 = 'docs+test://docs/r/1';
const R2 = 'docs+test://docs/r/2';

async function docs(options: Parameters<typeof upstream>[1] = {}) {
  return upstream(cleanup, { name: 'docs', resources: 3, ...options });
}

describe('read-through caching', () => {
  it('serves a repeated read from cache without reading upstream again', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    expect(await readText(client, R0)).toBe('resource 0');
    expect(await readText(client, R0)).toBe('resource 0');
    expect(up.reads()).toBe(1);
    expect(h.statuses).toEqual(['miss', 'hit']);
    expect(h.meter.count(CACHE_METRICS.hits, { status: 'hit' })).toBe(1);
    expect(h.meter.count(CACHE_METRICS.misses, { status: 'miss' })).toBe(1);
    expect(h.meter.gauge(CACHE_METRICS.entries)).toBe(1);
    const direct = await handleRead(h.gateway, R0, alice);
    expect(direct.ok && Buffer.byteLength(JSON.stringify(direct.result))).toBe(
      h.meter.gauge(CACHE_METRICS.bytes),
    );
  });

  it('passes other methods through without a cache status', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    await client.request({ method: 'resources/list', params: {} });
    await client.request({ method: 'resources/list', params: {} });
    expect(up.server.stats.requests['resources/list']).toBe(2);
    expect(h.statuses).toEqual([undefined, undefined]);
  });

  it('never caches an error', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    up.server.failNext({ method: 'resources/read', mode: 'error', code: -32000, message: 'boom' });
    await expect(readText(client, R0)).rejects.toThrow(/boom/);
    expect(await readText(client, R0)).toBe('resource 0');
    expect(up.reads()).toBe(2);
    expect(h.statuses).toEqual(['miss', 'miss']);
  });

  it('loads through the plugin host and refuses bad options naming the option', async () => {
    await expect(
      setupPlugins([{ plugin: cachePlugin, options: { maxBytes: '64MB' }, source: 'cache' }], silentLogger),
    ).rejects.toSatisfy(
      (e) =>
        e instanceof PluginError &&
        e.code === 'PLUGIN_SETUP_FAILED' &&
        /option maxBytes must be a whole number/.test(e.message),
    );
    await expect(
      setupPlugins([{ plugin: cachePlugin, options: { ttl: 5 }, source: 'cache' }], silentLogger),
    ).rejects.toThrow(/unknown option "ttl"/);
    const [loaded] = await setupPlugins(
      [{ plugin: cachePlugin, options: { ttlMs: 1000 }, source: 'cache' }],
      silentLogger,
    );
    expect(Object.keys(loaded!.hooks).sort()).toEqual(['close', 'notification', 'request']);
  });
});

describe('coalescing', () => {
  it('turns concurrent reads of one URI into one upstream read', async () => {
    const up = await docs({ latencyMs: 150 });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const clients = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((id) => connect(cleanup, h.gateway, identity(id))),
    );
    const texts = await Promise.all(clients.map((client) => readText(client, R0)));
    expect(texts).toEqual(Array(5).fill('resource 0'));
    expect(up.reads()).toBe(1);
    expect([...h.statuses].sort()).toEqual(['coalesced', 'coalesced', 'coalesced', 'coalesced', 'miss']);
    expect(h.meter.count(CACHE_METRICS.hits, { status: 'coalesced' })).toBe(4);
  });

  it('lets followers read for themselves when the leader is cancelled', async () => {
    const up = await docs({ latencyMs: 300 });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const cancel = new AbortController();
    const leader = handleRead(h.gateway, R0, alice, cancel.signal);
    await eventually(() => up.reads() === 1, 'the leader reading upstream');
    const follower = handleRead(h.gateway, R0, bob);
    cancel.abort();
    expect(await leader).toMatchObject({ ok: false, error: { data: { reason: 'cancelled' } } });
    expect(await follower).toMatchObject({ ok: true });
    expect(up.reads()).toBe(2);
    expect(h.statuses).toEqual(['miss', 'miss']);
  });

  it("ends a follower's wait as soon as its own request is cancelled", async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const held = manualGate();
    cleanup.add(held.open);
    h.hold.gate = held.gate;
    let leaderDone = false;
    const leader = handleRead(h.gateway, R0, alice).finally(() => {
      leaderDone = true;
    });
    await eventually(() => h.hold.waiting === 1, 'the leader held after its upstream read');
    const cancel = new AbortController();
    let followerOutcome: unknown;
    void handleRead(h.gateway, R0, bob, cancel.signal).then((o) => {
      followerOutcome = o;
    });
    cancel.abort();
    await eventually(() => followerOutcome !== undefined, 'the cancelled follower to finish');
    expect(followerOutcome).toMatchObject({ ok: false, error: { data: { reason: 'cancelled' } } });
    expect(leaderDone).toBe(false);
    held.open();
    expect(await leader).toMatchObject({ ok: true });
    expect(up.reads()).toBe(1);
  });
});

describe('coherence', () => {
  it('evicts an entry when the upstream says it changed; the next read is fresh', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    expect(await readText(client, R0)).toBe('resource 0');
    expect(await readText(client, R0)).toBe('resource 0');
    expect(h.gateway.subscriptionCount).toBe(1);
    expect(up.server.stats.subscribed['test://docs/r/0']).toBe(1);
    up.server.setText('test://docs/r/0', 'v2');
    await up.server.triggerUpdated('test://docs/r/0');
    // Hits until the update arrives, then one read upstream.
    await eventually(async () => (await readText(client, R0)) === 'v2', 'the fresh content');
    expect(up.reads()).toBe(2);
    expect(h.meter.count(CACHE_METRICS.evictions, { reason: 'update' })).toBe(1);
    expect(h.gateway.subscriptionCount).toBe(1);
  });

  it('does not store a read that an update overtook while it was in flight', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    const held = manualGate();
    cleanup.add(held.open);
    h.hold.gate = held.gate;
    const first = readText(client, R0);
    // The upstream has answered 'resource 0'; the answer is on its way back through the cache.
    await eventually(() => h.hold.waiting === 1, 'the read held after its upstream answer');
    up.server.setText('test://docs/r/0', 'v2');
    await up.server.triggerUpdated('test://docs/r/0');
    await eventually(
      () => h.notifications.some((n) => n.method === 'notifications/resources/updated'),
      'the update reaching the gateway',
    );
    h.hold.gate = undefined;
    held.open();
    expect(await first).toBe('resource 0');
    expect(await readText(client, R0)).toBe('v2');
    expect(up.reads()).toBe(2);
    expect(h.statuses).toEqual(['miss', 'miss']);
  });

  it('does not let a read join one that an update overtook', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const held = manualGate();
    cleanup.add(held.open);
    h.hold.gate = held.gate;
    const first = handleRead(h.gateway, R0, alice);
    await eventually(() => h.hold.waiting === 1, 'the first read held');
    up.server.setText('test://docs/r/0', 'v2');
    await up.server.triggerUpdated('test://docs/r/0');
    await eventually(() => h.notifications.length > 0, 'the update reaching the gateway');
    h.hold.gate = undefined;
    const second = handleRead(h.gateway, R0, alice);
    // Joining the held read would wait for it; a fresh read reaches the upstream at once.
    await eventually(() => up.reads() === 2, 'the second read going upstream');
    expect(await second).toMatchObject({ ok: true, result: { contents: [{ text: 'v2' }] } });
    held.open();
    await first;
    expect(h.statuses).toEqual(['miss', 'miss']);
  });

  it('drops the entries of an upstream that disconnects (updates may have been missed)', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    expect(h.meter.gauge(CACHE_METRICS.entries)).toBe(1);
    up.server.failNext({ method: 'resources/read', mode: 'crash', uri: 'test://docs/r/1' });
    await expect(readText(client, R1)).rejects.toThrow();
    await eventually(() => h.meter.gauge(CACHE_METRICS.entries) === 0, 'the entry dropped');
    expect(h.meter.count(CACHE_METRICS.evictions, { reason: 'upstream_down' })).toBe(1);
    await eventually(
      async () => (await readText(client, R0).catch(() => undefined)) === 'resource 0',
      'a read after reconnecting',
    );
    expect(h.statuses.at(-1)).toBe('miss');
  });

  it('caches with its TTL only when the upstream cannot subscribe', async () => {
    const up = await docs({ subscribe: false });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    await readText(client, R0);
    expect(up.reads()).toBe(1);
    expect(h.gateway.subscriptionCount).toBe(0);
  });

  it('still caches when the upstream refuses the subscription', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    up.server.failNext({ method: 'resources/subscribe', mode: 'error', code: -32603, message: 'no' });
    await readText(client, R0);
    await readText(client, R0);
    expect(up.reads()).toBe(1);
    expect(up.server.stats.requests['resources/subscribe']).toBe(1);
    expect(h.gateway.subscriptionCount).toBe(0);
  });

  it('holds no subscription when coherent is false', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }], { coherent: false });
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    await readText(client, R0);
    expect(up.reads()).toBe(1);
    expect(up.server.stats.subscribeCalls).toBe(0);
  });

  it('releases every subscription on close', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    for (const uri of [R0, R1, R2]) await readText(client, uri);
    expect(h.gateway.subscriptionCount).toBe(3);
    await h.gateway.close();
    expect(h.gateway.subscriptionCount).toBe(0);
    expect(up.server.stats.unsubscribeCalls).toBe(3);
  });
});

describe('bounds', () => {
  it('keeps the cached bytes within maxBytes, evicting the least recently used entry', async () => {
    const up = await docs({ payloadBytes: 1000 });
    const maxBytes = 2500;
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }], { maxBytes, lingerMs: 0 });
    const client = await connect(cleanup, h.gateway, alice);
    const bytes = () => h.meter.gauge(CACHE_METRICS.bytes);
    for (const uri of [R0, R1, R0, R2]) {
      await readText(client, uri);
      expect(bytes()).toBeLessThanOrEqual(maxBytes);
    }
    // r/0 was used after r/1, so r/1 made room for r/2.
    expect(h.statuses).toEqual(['miss', 'miss', 'hit', 'miss']);
    expect(h.meter.gauge(CACHE_METRICS.entries)).toBe(2);
    expect(h.meter.count(CACHE_METRICS.evictions, { reason: 'capacity' })).toBe(1);
    await eventually(() => up.server.stats.subscribed['test://docs/r/1'] === 0, 'r/1 unsubscribed');
    expect(h.gateway.subscriptionCount).toBe(2);
    await readText(client, R0);
    await readText(client, R1);
    expect(h.statuses.slice(4)).toEqual(['hit', 'miss']);
    expect(up.reads()).toBe(4);
  });

  it('does not store an entry larger than maxBytes, nor keep its subscription', async () => {
    const up = await docs({ payloadBytes: 1000 });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }], { maxBytes: 500, lingerMs: 0 });
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    await readText(client, R0);
    expect(up.reads()).toBe(2);
    expect(h.meter.gauge(CACHE_METRICS.entries)).toBe(0);
    await eventually(() => h.gateway.subscriptionCount === 0, 'the subscription released');
  });

  it('expires entries after ttlMs and releases their subscription', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }], { ttlMs: 100, lingerMs: 0 });
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    expect(h.gateway.subscriptionCount).toBe(1);
    await eventually(() => h.gateway.subscriptionCount === 0, 'the expired entry releasing its watch');
    expect(h.meter.count(CACHE_METRICS.evictions, { reason: 'ttl' })).toBe(1);
    await readText(client, R0);
    expect(up.reads()).toBe(2);
    expect(h.statuses).toEqual(['miss', 'miss']);
  });
});

describe('modern upstream hints', () => {
  it('does not store a result whose ttlMs is 0 (bypass)', async () => {
    const up = await docs({ modern: true, cacheTtlMs: 0, cacheScope: 'public' });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    await readText(client, R0);
    expect(up.reads()).toBe(2);
    expect(h.statuses).toEqual(['bypass', 'bypass']);
    expect(h.meter.count(CACHE_METRICS.misses, { status: 'bypass' })).toBe(2);
  });

  it('shares public results and reports the remaining freshness on a hit', async () => {
    const up = await docs({ modern: true, cacheTtlMs: 60_000, cacheScope: 'public' });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const first = await handleRead(h.gateway, R0, alice);
    expect(first).toMatchObject({ ok: true, result: { ttlMs: 60_000, cacheScope: 'public' } });
    const second = await handleRead(h.gateway, R0, bob);
    expect(second).toMatchObject({ ok: true, result: { cacheScope: 'public' } });
    const ttl = second.ok ? second.result.ttlMs : undefined;
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(up.reads()).toBe(1);
    expect(h.statuses).toEqual(['miss', 'hit']);
  });

  it('keys private results per identity', async () => {
    const up = await docs({ modern: true, cacheTtlMs: 60_000, cacheScope: 'private' });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const [a, b] = [await connect(cleanup, h.gateway, alice), await connect(cleanup, h.gateway, bob)];
    await readText(a, R0);
    await readText(a, R0);
    expect(up.reads()).toBe(1);
    await readText(b, R0);
    await readText(b, R0);
    expect(up.reads()).toBe(2);
    expect(h.statuses).toEqual(['miss', 'hit', 'miss', 'hit']);
  });

  it('coalesces private reads only within one identity', async () => {
    const up = await docs({ modern: true, cacheTtlMs: 60_000, cacheScope: 'private', latencyMs: 200 });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
    const leader = handleRead(h.gateway, R0, alice);
    await eventually(() => up.reads() === 1, 'the first read upstream');
    const [again, other] = await Promise.all([
      handleRead(h.gateway, R0, alice),
      handleRead(h.gateway, R0, bob),
    ]);
    expect((await leader).ok && again.ok && other.ok).toBe(true);
    expect(up.reads()).toBe(2);
    expect([...h.statuses].sort()).toEqual(['coalesced', 'miss', 'miss']);
  });
});

describe('lingering watches', () => {
  it('keeps a URI watched for lingerMs after its entry left, so a re-read neither re-subscribes nor goes stale', async () => {
    const up = await docs({ payloadBytes: 1000 });
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }], {
      maxBytes: 1500,
      lingerMs: 60_000,
    });
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    await readText(client, R1); // evicts r/0 (capacity): its watch lingers
    expect(h.meter.count(CACHE_METRICS.evictions, { reason: 'capacity' })).toBe(1);
    expect(h.gateway.subscriptionCount).toBe(2);
    expect(up.server.stats.subscribeCalls).toBe(2);
    // Still coherent while lingering: the update of r/0 is heard, and reading it again ends up caching
    // the new content (a read that overlapped the update itself is not stored, and reads again).
    up.server.setText('test://docs/r/0', 'v2');
    await up.server.triggerUpdated('test://docs/r/0');
    await eventually(
      async () => ((await readText(client, R0)).startsWith('v2') && h.statuses.at(-1) === 'hit') || undefined,
      'the new content served from cache',
    );
    expect(up.server.stats.subscribeCalls).toBe(2); // the lingering watch was reused, never re-subscribed
  });

  it('releases a lingering watch after lingerMs, not when its entry expires', async () => {
    const up = await docs();
    const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }], { ttlMs: 50, lingerMs: 2_000 });
    const client = await connect(cleanup, h.gateway, alice);
    await readText(client, R0);
    await eventually(
      () => h.meter.count(CACHE_METRICS.evictions, { reason: 'ttl' }) === 1 || undefined,
      'the entry to expire',
    );
    expect(h.gateway.subscriptionCount).toBe(1); // lingering
    await eventually(
      () => h.gateway.subscriptionCount === 0 || undefined,
      'the lingering watch released',
      10_000,
    );
    // The table drops the watch at once; the upstream unsubscribe it sends is not awaited by anyone.
    await eventually(() => up.server.stats.unsubscribeCalls === 1 || undefined, 'the upstream unsubscribe');
  });
});
