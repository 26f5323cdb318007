import { afterEach, describe, expect, it } from 'vitest';
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
// Coherence: upstream updates and disconnects evict, no stale write-back.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const alice = identity('alice');
const R0 = 'docs+test://docs/r/0';
const R1 = 'docs+test://docs/r/1';
const R2 = 'docs+test://docs/r/2';

async function docs(options: Parameters<typeof upstream>[1] = {}) {
  return upstream(cleanup, { name: 'docs', resources: 3, ...options });
}

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
