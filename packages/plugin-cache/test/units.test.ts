import { validateOptions } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { copyResult, freshnessOf, privateKey, sharedKey } from '../src/freshness.js';
import { cacheOptions, DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, DEFAULT_TTL_MS } from '../src/options.js';
import { type CachedRead, type EvictionReason, ResourceCache } from '../src/resource-cache.js';

/** The options as the plugin host hands them to setup (an entry without options gets `{}`). */
const resolveCacheOptions = (options: unknown) =>
  validateOptions('@switchyard/plugin-cache', cacheOptions, options ?? {});

describe('cacheOptions', () => {
  it('applies the contract defaults', () => {
    expect(resolveCacheOptions(undefined)).toEqual({
      maxBytes: DEFAULT_MAX_BYTES,
      ttlMs: DEFAULT_TTL_MS,
      coherent: true,
      maxEntries: DEFAULT_MAX_ENTRIES,
      lingerMs: 30_000,
    });
    expect(resolveCacheOptions({ lingerMs: 0 }).lingerMs).toBe(0);
    expect(() => resolveCacheOptions({ lingerMs: -1 })).toThrow(
      /^Plugin @switchyard\/plugin-cache: options\.lingerMs: expected a whole number from 0 to 2147483647 \(milliseconds, 0 to release at once\), got -1$/,
    );
    expect(DEFAULT_MAX_BYTES).toBe(64 * 1024 * 1024);
    expect(DEFAULT_TTL_MS).toBe(300_000);
    expect(
      resolveCacheOptions({ maxBytes: 1024, ttlMs: 5, coherent: false, maxEntries: 3, lingerMs: 7 }),
    ).toEqual({
      maxBytes: 1024,
      ttlMs: 5,
      coherent: false,
      maxEntries: 3,
      lingerMs: 7,
    });
  });

  it.each([
    [[], /: options: expected an object such as \{ "maxBytes": 67108864/],
    ['64MB', /: options: expected an object/],
    [
      { maxBytes: '64MB' },
      /: options\.maxBytes: expected a whole number .*\(bytes, e\.g\. 67108864 for 64 MiB\), got "64MB"$/,
    ],
    [{ maxBytes: 0 }, /options\.maxBytes: expected a whole number from 1 .*, got 0$/],
    [{ maxBytes: 1.5 }, /options\.maxBytes: .*, got 1\.5$/],
    [{ ttlMs: -1 }, /options\.ttlMs: .*, got -1$/],
    [{ ttlMs: 2 ** 31 }, /options\.ttlMs: expected a whole number from 1 to 2147483647/],
    [{ coherent: 'yes' }, /options\.coherent: expected true or false, got "yes"$/],
    [{ maxEntries: 10_000_000 }, /options\.maxEntries: expected a whole number from 1 to 1000000/],
    [{ l2MaxBytes: null }, /options\.l2MaxBytes: expected a whole number .*, got null$/],
    [{ ttl: 1000 }, /options\.ttl: unknown option \(the cache accepts maxBytes, ttlMs, coherent, maxEntries/],
    [{ maxBytes: 'lots', ttl: 1 }, /options\.maxBytes: .*got "lots"; options\.ttl: unknown option/],
  ])('refuses %j naming the plugin and the option', (options, message) => {
    expect(() => resolveCacheOptions(options)).toThrow(/^Plugin @switchyard\/plugin-cache: options/);
    expect(() => resolveCacheOptions(options)).toThrow(message);
  });
});

describe('freshnessOf', () => {
  it('shares a legacy (unhinted) result for the configured TTL', () => {
    expect(freshnessOf({ contents: [] }, 1000)).toEqual({
      cacheable: true,
      ttlMs: 1000,
      audience: 'shared',
      statesTtl: false,
    });
  });

  it('takes the shorter of the two TTLs and keeps private results private', () => {
    expect(freshnessOf({ ttlMs: 50, cacheScope: 'public' }, 1000)).toMatchObject({
      ttlMs: 50,
      audience: 'shared',
    });
    expect(freshnessOf({ ttlMs: 5000, cacheScope: 'private' }, 1000)).toMatchObject({
      ttlMs: 1000,
      audience: 'private',
      statesTtl: true,
    });
    // A hinted result without a scope is private; without a TTL it is immediately stale.
    expect(freshnessOf({ ttlMs: 10 }, 1000)).toMatchObject({ cacheable: true, audience: 'private' });
    expect(freshnessOf({ cacheScope: 'public' }, 1000)).toEqual({ cacheable: false, audience: 'shared' });
  });

  it('never stores a ttlMs of 0 (or nonsense)', () => {
    for (const ttlMs of [0, -5, Number.NaN, '100'])
      expect(freshnessOf({ ttlMs, cacheScope: 'public' }, 1000).cacheable).toBe(false);
  });
});

describe('keys and copies', () => {
  it('never confuses shared and private keys, nor two identity/URI pairs', () => {
    expect(privateKey('a', 'bc')).not.toBe(privateKey('ab', 'c'));
    expect(privateKey('a', 'x')).not.toBe(sharedKey('x'));
  });

  it('copies a result so a caller cannot change the cached one', () => {
    const cached = { contents: [{ uri: 'u', text: 'a' }], ttlMs: 5 };
    const copy = copyResult(cached);
    copy.ttlMs = 1;
    (copy.contents as { text: string }[])[0]!.text = 'changed';
    expect(cached).toEqual({ contents: [{ uri: 'u', text: 'a' }], ttlMs: 5 });
  });
});

/** A watcher under the test's control: counts watches and releases, settles watches on demand. */
function fakeWatcher() {
  const calls: { uri: string; invalidate: () => void; resolve(): void; reject(e: Error): void }[] = [];
  let released = 0;
  const watcher = (uri: string, invalidate: () => void) =>
    new Promise<() => Promise<void>>((resolve, reject) => {
      calls.push({
        uri,
        invalidate,
        resolve: () =>
          resolve(async () => {
            released += 1;
          }),
        reject,
      });
    });
  return { watcher, calls, released: () => released };
}

const read = (uri: string, bytes = 10): CachedRead => ({
  uri,
  result: { contents: [] },
  bytes,
  statesTtl: false,
});
const flush = () => new Promise((resolve) => setImmediate(resolve));

function cacheWith(watcher: ReturnType<typeof fakeWatcher>['watcher'], maxBytes = 100) {
  const evictions: EvictionReason[] = [];
  const cache = new ResourceCache({
    maxBytes,
    maxEntries: 100,
    watcher,
    onEvict: (reason) => evictions.push(reason),
    onWatchError: () => {},
  });
  return { cache, evictions };
}

describe('ResourceCache watches', () => {
  it('holds one watch per URI and releases it exactly once when the last entry leaves', async () => {
    const w = fakeWatcher();
    const { cache, evictions } = cacheWith(w.watcher);
    const t1 = cache.begin('u');
    const t2 = cache.begin('u');
    expect(w.calls).toHaveLength(1);
    w.calls[0]!.resolve();
    await t1.watched;
    t1.start();
    t2.start();
    expect(t1.store(sharedKey('u'), read('u'), 10_000)).toBe(true);
    expect(t2.store(privateKey('bob', 'u'), read('u'), 10_000)).toBe(true);
    t1.end();
    t2.end();
    t2.end();
    expect(cache.invalidate('u', 'update')).toBe(2);
    expect(cache.invalidate('u', 'update')).toBe(0);
    await flush();
    expect(w.released()).toBe(1);
    expect(evictions).toEqual(['update', 'update']);
    expect(cache.uris).toBe(0);
  });

  it('releases a watch that settles after everything of its URI is gone', async () => {
    const w = fakeWatcher();
    const { cache } = cacheWith(w.watcher);
    const ticket = cache.begin('u');
    ticket.end();
    expect(cache.uris).toBe(0);
    w.calls[0]!.resolve();
    await flush();
    expect(w.released()).toBe(1);
  });

  it('stores with its TTL only when the watch fails, and tries again on a later read', async () => {
    const w = fakeWatcher();
    const { cache } = cacheWith(w.watcher);
    const t1 = cache.begin('u');
    w.calls[0]!.reject(new Error('refused'));
    await t1.watched;
    t1.start();
    expect(t1.store(sharedKey('u'), read('u'), 10_000)).toBe(true);
    t1.end();
    expect(cache.lookup('u', 'anyone')).toBeDefined();
    cache.begin('u').end();
    expect(w.calls).toHaveLength(2);
  });

  it('refuses to store once the URI was invalidated after the read started', async () => {
    const w = fakeWatcher();
    const { cache } = cacheWith(w.watcher);
    const ticket = cache.begin('u');
    w.calls[0]!.resolve();
    await ticket.watched;
    ticket.start();
    w.calls[0]!.invalidate(); // the upstream disconnected
    expect(ticket.store(sharedKey('u'), read('u'), 10_000)).toBe(false);
    ticket.end();
    await flush();
    expect(w.released()).toBe(1);
  });

  it('evicts by capacity, releasing the evicted URI only', async () => {
    const w = fakeWatcher();
    const { cache, evictions } = cacheWith(w.watcher, 25);
    for (const uri of ['a', 'b', 'c']) {
      const ticket = cache.begin(uri);
      w.calls.at(-1)!.resolve();
      await ticket.watched;
      ticket.start();
      ticket.store(sharedKey(uri), read(uri), 10_000);
      ticket.end();
      expect(cache.bytes).toBeLessThanOrEqual(25);
    }
    expect(evictions).toEqual(['capacity']);
    expect(cache.lookup('a', 'x')).toBeUndefined();
    await flush();
    expect(w.released()).toBe(1);
    await cache.close();
    expect(w.released()).toBe(3);
    expect(evictions).toEqual(['capacity']);
  });

  it('releases watches of reads still in flight on close, and stores nothing after', async () => {
    const w = fakeWatcher();
    const { cache } = cacheWith(w.watcher);
    const ticket = cache.begin('u');
    const closing = cache.close();
    w.calls[0]!.resolve();
    await closing;
    expect(w.released()).toBe(1);
    ticket.start();
    expect(ticket.store(sharedKey('u'), read('u'), 10_000)).toBe(false);
    ticket.end();
    expect(w.released()).toBe(1);
  });
});
