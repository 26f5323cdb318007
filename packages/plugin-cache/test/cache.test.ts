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
        e.code === 'PLUGIN_INVALID_OPTIONS' &&
        e.plugin === '@switchyard/plugin-cache' &&
        /^Plugin @switchyard\/plugin-cache: options\.maxBytes: expected a whole number .*, got "64MB"$/.test(
          e.message,
        ),
    );
    await expect(
      setupPlugins([{ plugin: cachePlugin, options: { ttl: 5 }, source: 'cache' }], silentLogger),
    ).rejects.toThrow(/options\.ttl: unknown option/);
    const [loaded] = await setupPlugins(
      [{ plugin: cachePlugin, options: { ttlMs: 1000 }, source: 'cache' }],
      silentLogger,
    );
    expect(Object.keys(loaded!.hooks).sort()).toEqual(['close', 'notification', 'request', 'stats']);
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
