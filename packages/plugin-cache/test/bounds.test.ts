import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_METRICS } from '../src/metrics.js';
import {
  Cleanup,
  connect,
  eventually,
  gatewayWith,
  handleRead,
  identity,
  readText,
  upstream,
} from './support.js';

// The cache in a real Gateway, in front of real testkit upstreams over HTTP on loopback, read by
// official SDK clients on in-memory sessions. Upstream read counts come from the testkit's stats.
// Bounds (bytes, entries, TTL), modern freshness hints, and lingering watches.

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
