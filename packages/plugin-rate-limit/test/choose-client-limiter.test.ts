import { MemoryStore, openStore, silentLogger } from '@switchyard/core';
import { redisMissing, startRedis } from '@switchyard/testkit/process';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseClientLimiter } from '../src/choose-client-limiter.js';
import { Cleanup } from './support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const limits = { requestsPerSecond: 0.05, burst: 2, maxClients: 100 };
const missing = redisMissing();

describe('chooseClientLimiter', () => {
  it('keeps the in-memory token buckets, answered synchronously, when the store is not shared', async () => {
    const store = new MemoryStore();
    cleanup.add(() => store.dispose());
    const limiter = chooseClientLimiter(limits, store.scoped('plugin:rate-limit:'), silentLogger);
    cleanup.add(() => limiter.close());
    expect(limiter.consume('alice')).toEqual({ ok: true });
    expect(limiter.consume('alice')).toEqual({ ok: true });
    expect(limiter.consume('alice')).toEqual({ ok: false, retryAfterMs: expect.any(Number) });
    // Nothing was written to the store.
    expect(await store.get('plugin:rate-limit:client:alice')).toBeUndefined();
  });

  it.skipIf(missing)(
    'counts in Redis under the plugin scope of the store prefix when the store is Redis',
    async () => {
      const redis = await startRedis();
      cleanup.add(() => redis.stop());
      const root = await openStore({ redis: { url: redis.url, keyPrefix: 'gw:' } }, silentLogger);
      cleanup.add(() => root.dispose());
      const limiter = chooseClientLimiter(limits, root.scoped('plugin:rate-limit:'), silentLogger);
      cleanup.add(() => limiter.close());
      await expect(limiter.consume('alice')).resolves.toEqual({ ok: true });
      // gw: + plugin:rate-limit: + client + :alice (rate-limiter-flexible's separator).
      expect(await root.get('plugin:rate-limit:client:alice')).toBe('1');
      await expect(limiter.consume('alice')).resolves.toEqual({ ok: true });
      await expect(limiter.consume('alice')).resolves.toEqual({
        ok: false,
        retryAfterMs: expect.any(Number),
      });
    },
  );
});
