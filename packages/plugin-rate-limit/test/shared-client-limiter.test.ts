import { openStore, type Store, silentLogger, type UnavailablePolicy } from '@switchyard/core';
import { type RedisServer, redisMissing, startRedis } from '@switchyard/testkit/process';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientVerdict } from '../src/client-limiter.js';
import type { FixedWindow } from '../src/fixed-window.js';
import { SharedClientLimiter } from '../src/shared-client-limiter.js';
import { Cleanup } from './support.js';

// Two "replicas": two limiters over two RedisStore instances (two connections) on one real
// redis-server, keyed as the plugin keys them (the store's prefix, scoped to the plugin).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const missing = redisMissing();
if (missing) console.warn(`skipping the shared per-client limiter tests: ${missing}`);

const SCOPE = 'plugin:@switchyard/plugin-rate-limit:';

interface Replica {
  store: Store;
  limiter: SharedClientLimiter;
  consume(identity?: string): Promise<ClientVerdict>;
}

async function replica(
  redis: RedisServer,
  window: FixedWindow,
  options: { onUnavailable?: UnavailablePolicy; commandTimeoutMs?: number } = {},
): Promise<Replica> {
  const root = await openStore({ redis: { url: redis.url, ...options } }, silentLogger);
  cleanup.add(() => root.dispose());
  const store = root.scoped(SCOPE);
  const limiter = new SharedClientLimiter(store, window);
  cleanup.add(() => limiter.close());
  return { store, limiter, consume: (identity = 'alice') => limiter.consume(identity) };
}

async function redisServer(): Promise<RedisServer> {
  const redis = await startRedis();
  cleanup.add(() => redis.stop());
  return redis;
}

/** Resolves once `store.available` is `wanted` (now or at its next change). */
function until(store: Store, wanted: boolean): Promise<void> {
  return new Promise((resolve) => {
    if (store.available === wanted) return resolve();
    const stop = store.onAvailability((available) => {
      if (available !== wanted) return;
      stop();
      resolve();
    });
  });
}

/** Waits until `performance.now()` reaches `at` (timers may fire a little early; this never does). */
async function waitUntil(at: number): Promise<void> {
  for (let left = at - performance.now(); left > 0; left = at - performance.now())
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
}

const window = (points: number, durationSec: number): FixedWindow => ({ points, durationSec, exact: true });
const limited = { ok: false, retryAfterMs: expect.any(Number) };

describe.skipIf(missing)('SharedClientLimiter: one budget per identity across replicas (real Redis)', () => {
  it('shares one budget between two replicas, per identity', async () => {
    const redis = await redisServer();
    const a = await replica(redis, window(3, 60));
    const b = await replica(redis, window(3, 60));
    expect(await a.consume()).toEqual({ ok: true });
    expect(await b.consume()).toEqual({ ok: true });
    expect(await a.consume()).toEqual({ ok: true });
    const refused = await b.consume();
    expect(refused).toEqual(limited);
    const { retryAfterMs } = refused as { retryAfterMs: number };
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(await a.consume()).toEqual(limited);
    // Another identity has its own budget, on either replica.
    expect(await b.consume('bob')).toEqual({ ok: true });
    expect(await a.consume('bob')).toEqual({ ok: true });
  });

  it('admits the request made after waiting retryAfterMs', async () => {
    const redis = await redisServer();
    const a = await replica(redis, window(1, 1));
    const b = await replica(redis, window(1, 1));
    expect(await a.consume()).toEqual({ ok: true });
    const refused = await b.consume();
    expect(refused).toEqual(limited);
    const received = performance.now();
    const { retryAfterMs } = refused as { retryAfterMs: number };
    expect(retryAfterMs).toBeGreaterThan(0);
    await waitUntil(received + retryAfterMs);
    expect(await b.consume()).toEqual({ ok: true });
    expect(await a.consume()).toEqual(limited);
  });

  it('falls back to a budget per replica while Redis is down, and rejoins the shared one by itself', async () => {
    const redis = await redisServer();
    const a = await replica(redis, window(2, 60));
    const b = await replica(redis, window(2, 60));
    await redis.stop({ kill: true });
    await Promise.all([until(a.store, false), until(b.store, false)]);
    // Each replica now has a budget of its own, of the same shape.
    expect(await a.consume()).toEqual({ ok: true });
    expect(await a.consume()).toEqual({ ok: true });
    expect(await a.consume()).toEqual(limited);
    expect(await b.consume()).toEqual({ ok: true });
    expect(await b.consume()).toEqual({ ok: true });
    expect(await b.consume()).toEqual(limited);
    await redis.restart();
    await Promise.all([until(a.store, true), until(b.store, true)]);
    // Both local budgets are spent: what is admitted now is the (fresh) shared budget, spent once.
    expect(await a.consume()).toEqual({ ok: true });
    expect(await b.consume()).toEqual({ ok: true });
    expect(await a.consume()).toEqual(limited);
    expect(await b.consume()).toEqual(limited);
  });

  it('does not hold a request while Redis does not answer: the command timeout sends it to the local budget', async () => {
    const redis = await redisServer();
    const a = await replica(redis, window(1, 60), { commandTimeoutMs: 200 });
    expect(await a.consume()).toEqual({ ok: true });
    redis.proc.signal('SIGSTOP'); // connected, but silent
    cleanup.add(() => redis.proc.signal('SIGCONT'));
    // The shared budget is spent, the local one is not: admitted means it was answered locally.
    expect(await a.consume()).toEqual({ ok: true });
    // The store has been told to check itself and found Redis silent: later requests skip Redis.
    await until(a.store, false);
    expect(await a.consume()).toEqual(limited);
    redis.proc.signal('SIGCONT');
    await until(a.store, true);
    // Shared again: a fresh identity gets the one request of its window, on Redis.
    expect(await a.consume('bob')).toEqual({ ok: true });
    expect(await a.consume('bob')).toEqual(limited);
  });

  it('refuses with store_unavailable while Redis is down under onUnavailable "refuse", then serves again', async () => {
    const redis = await redisServer();
    const a = await replica(redis, window(2, 60), { onUnavailable: 'refuse' });
    expect(await a.consume()).toEqual({ ok: true });
    await redis.stop({ kill: true });
    await until(a.store, false);
    expect(await a.consume()).toEqual({
      ok: false,
      unavailable: expect.stringMatching(/^per-client rate limit: /),
    });
    await redis.restart();
    await until(a.store, true);
    expect(await a.consume()).toEqual({ ok: true });
  });
});
