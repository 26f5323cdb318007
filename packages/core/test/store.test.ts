import { type RedisServer, redisMissing, startRedis } from '@switchyard/testkit/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { MemoryStore } from '../src/store/memory.js';
import { openStore } from '../src/store/open.js';
import { MessageSigner } from '../src/store/signed-messages.js';
import { type Store, StoreUnavailableError } from '../src/store/store.js';
import { recordingLogger } from './support/recording-logger.js';

/** Resolves with the next message on `channel`. */
function nextMessage(store: Store, channel: string): Promise<string> {
  return new Promise((resolve) => {
    void store.pubsub!.subscribe(channel, resolve);
  });
}

/** Resolves once `store.available` is `wanted`. */
function availability(store: Store, wanted: boolean): Promise<void> {
  if (store.available === wanted) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = store.onAvailability((available) => {
      if (available !== wanted) return;
      stop();
      resolve();
    });
  });
}

/** What every driver must do, run against each of them. */
function contract(name: string, open: () => Promise<{ a: Store; b: Store; close(): Promise<void> }>) {
  describe(`the ${name} store`, () => {
    let a: Store;
    let b: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ a, b, close } = await open());
    });
    afterAll(() => close());

    it('gets, sets, deletes, expires and renews keys', async () => {
      await a.set('k', 'v1');
      expect(await b.get('k')).toBe('v1');
      await b.delete('k', 'absent');
      expect(await a.get('k')).toBeUndefined();
      await a.set('short', 'x', { ttlMs: 30 });
      expect(await a.get('short')).toBe('x');
      await expect.poll(() => b.get('short'), { timeout: 2000, interval: 10 }).toBeUndefined();
      await a.set('renewed', 'y', { ttlMs: 60_000 });
      expect(await b.touch('renewed', 60_000)).toBe(true);
      expect(await b.touch('never-set', 1000)).toBe(false);
    });

    it('sets a key only when absent, one winner among racers', async () => {
      const wins = await Promise.all(
        [a, b, a, b].map((s, i) => s.setIfAbsent('lock', String(i), { ttlMs: 5000 })),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await a.get('lock')).toBe(String(wins.indexOf(true)));
    });

    it('counts atomically, whoever increments', async () => {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).counters!.increment('n', 2, 60_000)),
      );
      expect(await a.counters!.increment('n', 0)).toBe(40);
    });

    it('publishes to every listener, the publisher’s own too', async () => {
      const heardByA = nextMessage(a, 'news');
      const heardByB = nextMessage(b, 'news');
      // The driver's subscription is asynchronous: publish until both heard.
      let done = false;
      const both = Promise.all([heardByA, heardByB]).finally(() => {
        done = true;
      });
      while (!done) {
        await a.pubsub!.publish('news', 'hello');
        await Promise.race([both, new Promise((resolve) => setTimeout(resolve, 20))]);
      }
      expect(await both).toEqual(['hello', 'hello']);
    });

    it('keeps scoped views apart', async () => {
      const one = a.scoped('plugin:one:');
      const two = b.scoped('plugin:two:');
      await one.set('same', '1');
      await two.set('same', '2');
      expect(await one.get('same')).toBe('1');
      expect(await b.scoped('plugin:one:').get('same')).toBe('1');
      expect(await two.get('same')).toBe('2');
      expect(await a.get('same')).toBeUndefined();
      await one.dispose(); // a view leaves the store open
      expect(await a.scoped('plugin:one:').get('same')).toBe('1');
    });
  });
}

contract('memory', async () => {
  const store = new MemoryStore();
  return { a: store, b: store, close: () => store.dispose() };
});

describe.skipIf(redisMissing())('the redis store', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  contract('redis (two replicas on one server)', async () => {
    const a = await openStore({ redis: { url: redis.url, keyPrefix: 'test:' } }, silentLogger);
    const b = await openStore({ redis: { url: redis.url, keyPrefix: 'test:' } }, silentLogger);
    return {
      a,
      b,
      close: async () => {
        await a.dispose();
        await b.dispose();
      },
    };
  });

  it('fails fast while Redis is gone, and rejoins by itself (subscriptions too)', async () => {
    const store = await openStore({ redis: { url: redis.url, keyPrefix: 'gone:' } }, silentLogger);
    try {
      expect(store.shared).toBe(true);
      expect(store.available).toBe(true);
      const heard: string[] = [];
      await store.pubsub!.subscribe('events', (m) => heard.push(m));
      await redis.stop({ kill: true });
      await availability(store, false);
      // Refused by the driver itself (no offline queue): nothing waits for Redis to return.
      await expect(store.get('k')).rejects.toThrow(/unavailable/);
      await expect(store.pubsub!.publish('events', 'lost')).rejects.toBeInstanceOf(StoreUnavailableError);
      // Subscribed while Redis is away: listening once it is back.
      const late: string[] = [];
      await store.pubsub!.subscribe('late', (m) => late.push(m));
      await redis.restart();
      await availability(store, true);
      await store.set('k', 'back');
      expect(await store.get('k')).toBe('back');
      await expect
        .poll(
          async () => {
            await store.pubsub!.publish('events', 'again');
            await store.pubsub!.publish('late', 'here');
            return heard.includes('again') && late.includes('here');
          },
          { timeout: 5000, interval: 50 },
        )
        .toBe(true);
    } finally {
      await store.dispose();
    }
  });

  it('with a secret, drops what no replica signed; a listener that throws costs only its message', async () => {
    const log = recordingLogger();
    const config = { redis: { url: redis.url, keyPrefix: 'signed:' } };
    const a = await openStore(config, log, 'the-secret');
    const b = await openStore(config, silentLogger, 'the-secret');
    const other = await openStore(config, silentLogger, 'another-secret');
    try {
      const heard: string[] = [];
      await a.pubsub!.subscribe('ch', (m) => {
        if (m === 'boom') throw new TypeError("Cannot read properties of null (reading 'id')");
        heard.push(m);
      });
      // Whoever writes to Redis without the secret: a raw PUBLISH, or a replica with another secret.
      const raw = (b.native!.client as { publish(channel: string, message: string): Promise<number> })
        .publish;
      await raw.call(b.native!.client, 'signed:ch', 'forged');
      await raw.call(b.native!.client, 'signed:ch', `${'A'.repeat(43)}.forged too`);
      await other.pubsub!.publish('ch', 'wrong secret');
      // A replica's message for another channel does not pass on this one.
      await raw.call(
        b.native!.client,
        'signed:ch',
        new MessageSigner('the-secret').sign('signed:elsewhere', 'moved'),
      );
      await b.pubsub!.publish('ch', 'boom');
      await b.pubsub!.publish('ch', 'signed');
      await expect.poll(() => heard, { timeout: 5000, interval: 20 }).toEqual(['signed']);
      const warned = log.entries.filter((e) => e.level === 'warn').map((e) => e.message);
      expect(warned).toContain('dropped a store message no replica signed (check cursorSecret)');
      expect(warned).toContain('a store message could not be handled; dropped');
    } finally {
      await Promise.all([a.dispose(), b.dispose(), other.dispose()]);
    }
  });

  it('with a secret, a value no replica signed for its key reads as absent', async () => {
    // Found from outside: the pins a replica applies from the store were whatever a Redis writer SET.
    const log = recordingLogger();
    const config = { redis: { url: redis.url, keyPrefix: 'values:' } };
    const a = await openStore(config, log, 'the-secret');
    const b = await openStore(config, silentLogger, 'the-secret');
    const other = await openStore(config, silentLogger, 'another-secret');
    const raw = b.native!.client as {
      set(key: string, value: string): Promise<unknown>;
      get(key: string): Promise<string | null>;
    };
    try {
      await b.set('pins', '{"tool":"reviewed"}');
      expect(await a.get('pins')).toBe('{"tool":"reviewed"}');
      expect(await a.setIfAbsent('lock', 'a', { ttlMs: 5000 })).toBe(true);
      expect(await b.get('lock')).toBe('a');
      // What a writer without the secret puts there: a raw SET, a store with another secret, a signed
      // value moved from another key.
      await raw.set('values:pins', '{"tool":"forged"}');
      expect(await a.get('pins')).toBeUndefined();
      await other.set('pins', '{"tool":"forged"}');
      expect(await a.get('pins')).toBeUndefined();
      await raw.set('values:pins', (await raw.get('values:lock'))!);
      expect(await a.get('pins')).toBeUndefined();
      expect(log.entries.map((e) => e.message)).toContain(
        'ignored a store value no replica signed (check cursorSecret)',
      );
    } finally {
      await Promise.all([a.dispose(), b.dispose(), other.dispose()]);
    }
  });

  it('treats a Redis that stops answering as unavailable after one command timeout', async () => {
    const store = await openStore({ redis: { url: redis.url, commandTimeoutMs: 200 } }, silentLogger);
    try {
      redis.proc.signal('SIGSTOP');
      await expect(store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(store.available).toBe(false);
      // Later commands are refused at once (not sent to wait out the timeout again) until a ping answers.
      await expect(store.get('k')).rejects.toThrow(/is unavailable$/);
      redis.proc.signal('SIGCONT');
      await availability(store, true);
      await store.set('k', 'v');
      expect(await store.get('k')).toBe('v');
    } finally {
      redis.proc.signal('SIGCONT');
      await store.dispose();
    }
  });
});
