import { describe, expect, it } from 'vitest';
import { type SubscriptionBackend, SubscriptionTable } from '../src/subscriptions.js';

type Op = 'subscribe' | 'unsubscribe';

interface PendingCall {
  op: Op;
  upstream: string;
  uri: string;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * A backend whose every call stays pending until the test settles it. It records the call sequence,
 * tracks what the upstream really holds (a subscribe that succeeded and was not undone), and flags
 * overlapping calls on one (upstream, uri), which the table promises never to make.
 */
class FakeBackend implements SubscriptionBackend {
  readonly calls: string[] = [];
  readonly pending: PendingCall[] = [];
  /** Keys the upstream currently holds a subscription for. */
  readonly held = new Set<string>();
  readonly overlaps: string[] = [];
  readonly #inFlight = new Set<string>();
  #waiters: Array<{ count: number; wake: () => void }> = [];

  subscribe(upstream: string, uri: string): Promise<void> {
    return this.#call('subscribe', upstream, uri);
  }

  unsubscribe(upstream: string, uri: string): Promise<void> {
    return this.#call('unsubscribe', upstream, uri);
  }

  /** Resolves once at least `count` calls have been made (bounded by the test timeout). */
  async untilCalls(count: number): Promise<void> {
    if (this.calls.length >= count) return;
    await new Promise<void>((wake) => this.#waiters.push({ count, wake }));
  }

  /** Settles the oldest pending call. */
  settle(outcome: 'ok' | 'fail' = 'ok'): PendingCall {
    const call = this.pending.shift();
    if (!call) throw new Error('no pending backend call');
    if (outcome === 'ok') call.resolve();
    else call.reject(new Error(`upstream refused ${call.op}`));
    return call;
  }

  #call(op: Op, upstream: string, uri: string): Promise<void> {
    const key = `${upstream} ${uri}`;
    this.calls.push(`${op} ${key}`);
    if (this.#inFlight.has(key)) this.overlaps.push(`${op} ${key}`);
    this.#inFlight.add(key);
    const promise = new Promise<void>((resolve, reject) => {
      this.pending.push({
        op,
        upstream,
        uri,
        resolve: () => {
          this.#inFlight.delete(key);
          if (op === 'subscribe') this.held.add(key);
          else this.held.delete(key);
          resolve();
        },
        reject: (error) => {
          this.#inFlight.delete(key);
          reject(error);
        },
      });
    });
    this.#waiters = this.#waiters.filter((w) => {
      if (this.calls.length < w.count) return true;
      w.wake();
      return false;
    });
    return promise;
  }
}

/** A backend that answers at once (for tests not about interleavings). */
class ImmediateBackend implements SubscriptionBackend {
  readonly calls: string[] = [];
  failNext: Op | undefined;

  async subscribe(upstream: string, uri: string): Promise<void> {
    this.calls.push(`subscribe ${upstream} ${uri}`);
    if (this.failNext === 'subscribe') {
      this.failNext = undefined;
      throw new Error('refused');
    }
  }

  async unsubscribe(upstream: string, uri: string): Promise<void> {
    this.calls.push(`unsubscribe ${upstream} ${uri}`);
    if (this.failNext === 'unsubscribe') {
      this.failNext = undefined;
      throw new Error('unsubscribe failed');
    }
  }
}

const sorted = (set: ReadonlySet<string>) => [...set].sort();

describe('SubscriptionTable: reference counting', () => {
  it('subscribes upstream for the first subscriber and unsubscribes after the last one leaves', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    await table.subscribe('s1', 'docs', 'file:///a');
    await table.subscribe('s2', 'docs', 'file:///a');
    await table.subscribe('s3', 'docs', 'file:///a');
    expect(backend.calls).toEqual(['subscribe docs file:///a']);
    expect(sorted(table.subscribers('docs', 'file:///a'))).toEqual(['s1', 's2', 's3']);
    expect(table.size).toBe(1);

    await table.unsubscribe('s2', 'docs', 'file:///a');
    await table.unsubscribe('s1', 'docs', 'file:///a');
    expect(backend.calls).toEqual(['subscribe docs file:///a']);
    expect(sorted(table.subscribers('docs', 'file:///a'))).toEqual(['s3']);

    await table.unsubscribe('s3', 'docs', 'file:///a');
    expect(backend.calls).toEqual(['subscribe docs file:///a', 'unsubscribe docs file:///a']);
    expect(table.size).toBe(0);
    expect(table.subscribers('docs', 'file:///a').size).toBe(0);
  });

  it('keys by (upstream, uri): the same URI on two upstreams is two subscriptions', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    await table.subscribe('s1', 'a', 'file:///x');
    await table.subscribe('s1', 'b', 'file:///x');
    await table.subscribe('s1', 'a', 'file:///y');
    expect(backend.calls).toEqual([
      'subscribe a file:///x',
      'subscribe b file:///x',
      'subscribe a file:///y',
    ]);
    expect(table.size).toBe(3);
    expect(table.urisOf('a').sort()).toEqual(['file:///x', 'file:///y']);
    expect(table.urisOf('b')).toEqual(['file:///x']);
    expect(table.urisOf('c')).toEqual([]);
  });

  it('treats a repeated subscribe by the same subscriber as one hold', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    await table.subscribe('s1', 'docs', 'u');
    await table.subscribe('s1', 'docs', 'u');
    expect(backend.calls).toEqual(['subscribe docs u']);
    await table.unsubscribe('s1', 'docs', 'u');
    expect(backend.calls).toEqual(['subscribe docs u', 'unsubscribe docs u']);
    expect(table.size).toBe(0);
  });

  it('ignores unsubscribes of unknown pairs and of non-subscribers', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    await table.unsubscribe('s1', 'docs', 'never');
    await table.subscribe('s1', 'docs', 'u');
    await table.unsubscribe('s2', 'docs', 'u');
    await table.unsubscribe('s1', 'other', 'u');
    expect(backend.calls).toEqual(['subscribe docs u']);
    expect(sorted(table.subscribers('docs', 'u'))).toEqual(['s1']);
  });

  it('rolls back a refused upstream subscribe and retries upstream on the next subscribe', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    backend.failNext = 'subscribe';
    await expect(table.subscribe('s1', 'docs', 'u')).rejects.toThrow('refused');
    expect(table.size).toBe(0);
    expect(table.subscribers('docs', 'u').size).toBe(0);
    expect(table.urisOf('docs')).toEqual([]);
    // Nothing to undo upstream, and releasing the failed subscriber does not unsubscribe anything.
    await table.releaseAll('s1');
    await table.unsubscribe('s1', 'docs', 'u');
    expect(backend.calls).toEqual(['subscribe docs u']);

    await table.subscribe('s2', 'docs', 'u');
    expect(backend.calls).toEqual(['subscribe docs u', 'subscribe docs u']);
    expect(sorted(table.subscribers('docs', 'u'))).toEqual(['s2']);
  });

  it('forgets the entry even when the upstream unsubscribe fails, so the next subscribe goes upstream', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    await table.subscribe('s1', 'docs', 'u');
    backend.failNext = 'unsubscribe';
    await expect(table.unsubscribe('s1', 'docs', 'u')).rejects.toThrow('unsubscribe failed');
    expect(table.size).toBe(0);
    await table.subscribe('s1', 'docs', 'u');
    expect(backend.calls).toEqual(['subscribe docs u', 'unsubscribe docs u', 'subscribe docs u']);
  });

  it('releaseAll drops everything one subscriber holds and keeps what others hold', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    await table.subscribe('s1', 'a', 'x');
    await table.subscribe('s1', 'a', 'y');
    await table.subscribe('s1', 'b', 'x');
    await table.subscribe('s2', 'a', 'x');
    await table.releaseAll('s1');
    expect(backend.calls.filter((c) => c.startsWith('unsubscribe')).sort()).toEqual([
      'unsubscribe a y',
      'unsubscribe b x',
    ]);
    expect(table.size).toBe(1);
    expect(sorted(table.subscribers('a', 'x'))).toEqual(['s2']);
    // s1 holds nothing any more: a second releaseAll and a late unsubscribe are no-ops.
    const before = backend.calls.length;
    await table.releaseAll('s1');
    await table.unsubscribe('s1', 'a', 'x');
    expect(backend.calls).toHaveLength(before);
    expect(sorted(table.subscribers('a', 'x'))).toEqual(['s2']);
    await table.releaseAll('nobody');
  });

  it('releaseAll settles every key even if one upstream unsubscribe fails', async () => {
    const backend = new ImmediateBackend();
    const table = new SubscriptionTable(backend);
    await table.subscribe('s1', 'a', 'x');
    await table.subscribe('s1', 'a', 'y');
    backend.failNext = 'unsubscribe';
    await expect(table.releaseAll('s1')).resolves.toBeUndefined();
    expect(table.size).toBe(0);
    expect(backend.calls.filter((c) => c.startsWith('unsubscribe'))).toHaveLength(2);
  });
});

describe('SubscriptionTable: per-key serialization', () => {
  it('an unsubscribe racing a pending first subscribe runs after it and unsubscribes upstream', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    const sub = table.subscribe('s1', 'docs', 'u');
    const unsub = table.unsubscribe('s1', 'docs', 'u');
    await backend.untilCalls(1);
    expect(backend.calls).toEqual(['subscribe docs u']);
    backend.settle();
    await sub;
    await backend.untilCalls(2);
    backend.settle();
    await unsub;
    expect(backend.calls).toEqual(['subscribe docs u', 'unsubscribe docs u']);
    expect(backend.held.size).toBe(0);
    expect(table.size).toBe(0);
    expect(backend.overlaps).toEqual([]);
  });

  it('a second subscriber waiting on a pending first subscribe joins it without another upstream call', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    const first = table.subscribe('s1', 'docs', 'u');
    const second = table.subscribe('s2', 'docs', 'u');
    await backend.untilCalls(1);
    // While the upstream has not answered, nobody is a subscriber yet.
    expect(table.subscribers('docs', 'u').size).toBe(0);
    backend.settle();
    await Promise.all([first, second]);
    expect(backend.calls).toEqual(['subscribe docs u']);
    expect(sorted(table.subscribers('docs', 'u'))).toEqual(['s1', 's2']);
    expect(backend.pending).toHaveLength(0);
  });

  it('a subscribe racing the last pending unsubscribe re-subscribes upstream after it', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    const sub = table.subscribe('s1', 'docs', 'u');
    await backend.untilCalls(1);
    backend.settle();
    await sub;

    const leave = table.unsubscribe('s1', 'docs', 'u');
    const join = table.subscribe('s2', 'docs', 'u');
    await backend.untilCalls(2);
    expect(backend.calls).toEqual(['subscribe docs u', 'unsubscribe docs u']);
    backend.settle();
    await leave;
    await backend.untilCalls(3);
    backend.settle();
    await join;
    expect(backend.calls).toEqual(['subscribe docs u', 'unsubscribe docs u', 'subscribe docs u']);
    expect(backend.held).toEqual(new Set(['docs u']));
    expect(sorted(table.subscribers('docs', 'u'))).toEqual(['s2']);
    expect(backend.overlaps).toEqual([]);
  });

  it('a refused pending subscribe lets the queued subscribe retry upstream', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    const first = table.subscribe('s1', 'docs', 'u');
    const second = table.subscribe('s2', 'docs', 'u');
    const firstResult = first.then(
      () => 'ok',
      (error: Error) => error.message,
    );
    await backend.untilCalls(1);
    backend.settle('fail');
    expect(await firstResult).toBe('upstream refused subscribe');
    await backend.untilCalls(2);
    backend.settle();
    await second;
    expect(backend.calls).toEqual(['subscribe docs u', 'subscribe docs u']);
    expect(sorted(table.subscribers('docs', 'u'))).toEqual(['s2']);
    expect(backend.held).toEqual(new Set(['docs u']));
  });

  it('does not serialize different keys behind each other', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    const x = table.subscribe('s1', 'docs', 'x');
    const y = table.subscribe('s1', 'docs', 'y');
    // Both upstream calls are made while the first is still pending.
    await backend.untilCalls(2);
    expect(backend.calls).toEqual(['subscribe docs x', 'subscribe docs y']);
    backend.settle();
    backend.settle();
    await Promise.all([x, y]);
    expect(table.size).toBe(2);
  });

  it('ends in the right upstream state for random interleavings (seeded model check)', async () => {
    let seed = 0x5eed;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    for (let round = 0; round < 40; round++) {
      const backend = new FakeBackend();
      const table = new SubscriptionTable(backend);
      const model = new Set<string>();
      const ops: Promise<void>[] = [];
      for (let step = 0; step < 12; step++) {
        const subscriber = `s${Math.floor(random() * 3)}`;
        // Operations on one key apply in call order, so the model applies them in call order too.
        if (random() < 0.55) {
          model.add(subscriber);
          ops.push(table.subscribe(subscriber, 'docs', 'u'));
        } else {
          model.delete(subscriber);
          ops.push(table.unsubscribe(subscriber, 'docs', 'u'));
        }
        // Let the upstream answer some pending calls in between.
        while (backend.pending.length > 0 && random() < 0.5) backend.settle();
        await Promise.resolve();
      }
      const all = Promise.all(ops);
      let done = false;
      void all.then(() => {
        done = true;
      });
      while (!done) {
        if (backend.pending.length > 0) backend.settle();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      expect(sorted(table.subscribers('docs', 'u')), `round ${round}`).toEqual([...model].sort());
      expect(backend.held.has('docs u'), `round ${round}`).toBe(model.size > 0);
      expect(backend.overlaps, `round ${round}`).toEqual([]);
      // Upstream calls strictly alternate subscribe / unsubscribe, starting with subscribe.
      backend.calls.forEach((call, i) => {
        expect(call, `round ${round} call ${i}`).toBe(
          i % 2 === 0 ? 'subscribe docs u' : 'unsubscribe docs u',
        );
      });
    }
  });

  /** Settles backend calls as they come until `promise` settles (no timers: one macrotask turn per step). */
  async function drainUntil(backend: FakeBackend, promise: Promise<unknown>): Promise<void> {
    let done = false;
    void promise.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    while (!done) {
      if (backend.pending.length > 0) backend.settle();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await promise;
  }

  // Regression: a subscriber used to be indexed only after the upstream subscribe resolved, so a session closing
  // (Gateway.closeSession -> releaseAll) while its subscribe was pending kept the upstream subscription forever.
  it('releaseAll racing a pending subscribe leaves nothing held upstream', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    const sub = table.subscribe('s1', 'docs', 'u');
    await backend.untilCalls(1);
    const release = table.releaseAll('s1');
    await drainUntil(backend, Promise.all([sub, release]));
    expect(backend.calls).toEqual(['subscribe docs u', 'unsubscribe docs u']);
    expect(table.subscribers('docs', 'u').size).toBe(0);
    expect(table.size).toBe(0);
    expect(backend.held.size).toBe(0);
  });

  it('releaseAll racing a pending subscribe that the upstream refuses leaves nothing behind', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    const sub = table.subscribe('s1', 'docs', 'u').catch((error: Error) => error.message);
    await backend.untilCalls(1);
    const release = table.releaseAll('s1');
    backend.settle('fail');
    expect(await sub).toBe('upstream refused subscribe');
    await drainUntil(backend, release);
    expect(backend.calls).toEqual(['subscribe docs u']);
    expect(table.size).toBe(0);
    // s1 holds nothing: a later subscribe by s1 goes upstream again and is released by releaseAll.
    await drainUntil(backend, table.subscribe('s1', 'docs', 'u'));
    await drainUntil(backend, table.releaseAll('s1'));
    expect(backend.held.size).toBe(0);
  });

  // Regression: releaseAll used to delete the subscriber's whole index after its awaits, dropping keys subscribed
  // meanwhile, so no later releaseAll could release them.
  it('a subscribe made while releaseAll runs is released by the next releaseAll', async () => {
    const backend = new FakeBackend();
    const table = new SubscriptionTable(backend);
    await drainUntil(backend, table.subscribe('s1', 'docs', 'x'));
    const release = table.releaseAll('s1'); // waits on the upstream unsubscribe of x
    await backend.untilCalls(2);
    const late = table.subscribe('s1', 'docs', 'y');
    await drainUntil(backend, Promise.all([release, late]));
    expect(table.urisOf('docs')).toEqual(['y']);
    await drainUntil(backend, table.releaseAll('s1'));
    expect(table.size).toBe(0);
    expect(backend.held.size).toBe(0);
  });
});
