import { GatewayError } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResolvedUpstreamLimits } from '../src/options.js';
import { type QueuedCall, UpstreamQueues } from '../src/upstream-queues.js';

/** A stand-in for the upstream send: every call waits until the test releases it; tracks concurrency. */
class HeldUpstream {
  inFlight = 0;
  maxInFlight = 0;
  readonly started: string[] = [];
  readonly #held: Array<() => void> = [];

  send(label: string): () => Promise<string> {
    return () => {
      this.started.push(label);
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      return new Promise<string>((resolve) => {
        this.#held.push(() => {
          this.inFlight -= 1;
          resolve(label);
        });
      });
    };
  }

  /** Answers the oldest held call. */
  releaseOne(): void {
    this.#held.shift()?.();
  }

  async releaseAll(): Promise<void> {
    while (this.#held.length > 0 || this.inFlight > 0) {
      this.releaseOne();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

const opened: UpstreamQueues[] = [];
afterEach(() => {
  for (const q of opened.splice(0)) q.close();
});

function queues(limits: Partial<ResolvedUpstreamLimits> & { concurrency: number; maxQueue: number }) {
  const refused: string[] = [];
  const q = new UpstreamQueues(
    (upstream) => (upstream === 'free' ? undefined : { requestsPerSecond: undefined, ...limits }),
    (upstream) => refused.push(upstream),
  );
  opened.push(q);
  return { q, refused };
}

const call = (extra: Partial<QueuedCall> = {}): QueuedCall => ({
  upstream: 'docs',
  method: 'resources/read',
  refusable: true,
  ...extra,
});

async function reason(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return (error as GatewayError).data?.reason;
}

describe('UpstreamQueues', () => {
  it('runs `concurrency` calls, lets `maxQueue` wait and refuses the next one at once', async () => {
    const { q, refused } = queues({ concurrency: 1, maxQueue: 2 });
    const upstream = new HeldUpstream();
    const calls = ['a', 'b', 'c'].map((label) => q.run(call(), upstream.send(label)));
    const fourth = q.run(call(), upstream.send('d'));
    // Refused while a, b and c are all still held: it did not wait for anything.
    const error = await fourth.catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: -32005,
      data: { reason: 'upstream_busy', upstream: 'docs', maxQueue: 2 },
    });
    expect(refused).toEqual(['docs']);
    expect([...q.waitingByUpstream()]).toEqual([['docs', 2]]);
    expect(upstream.started).toEqual(['a']);
    await upstream.releaseAll();
    await expect(Promise.all(calls)).resolves.toEqual(['a', 'b', 'c']);
    expect(upstream.started).toEqual(['a', 'b', 'c']);
    expect(upstream.maxInFlight).toBe(1);
    expect([...q.waitingByUpstream()]).toEqual([['docs', 0]]);
  });

  it('with maxQueue 0 refuses only calls that would have to wait', async () => {
    const { q } = queues({ concurrency: 2, maxQueue: 0 });
    const upstream = new HeldUpstream();
    const running = [q.run(call(), upstream.send('a')), q.run(call(), upstream.send('b'))];
    expect(await reason(q.run(call(), upstream.send('c')))).toBe('upstream_busy');
    upstream.releaseOne();
    await running[0];
    const later = q.run(call(), upstream.send('d'));
    await upstream.releaseAll();
    await expect(Promise.all([running[1], later])).resolves.toEqual(['b', 'd']);
    expect(upstream.started).toEqual(['a', 'b', 'd']);
  });

  it('takes a cancelled call out of the queue, freeing its place, without sending it', async () => {
    const { q } = queues({ concurrency: 1, maxQueue: 1 });
    const upstream = new HeldUpstream();
    const first = q.run(call(), upstream.send('a'));
    const controller = new AbortController();
    const cancelled = q.run(call({ signal: controller.signal }), upstream.send('b'));
    expect(await reason(q.run(call(), upstream.send('c')))).toBe('upstream_busy');
    controller.abort();
    expect(await reason(cancelled)).toBe('cancelled');
    const next = q.run(call(), upstream.send('d'));
    await upstream.releaseAll();
    await expect(Promise.all([first, next])).resolves.toEqual(['a', 'd']);
    expect(upstream.started).toEqual(['a', 'd']);
  });

  it('keeps the slot of a running call that is cancelled until the upstream has answered', async () => {
    const { q } = queues({ concurrency: 1, maxQueue: 1 });
    const upstream = new HeldUpstream();
    const controller = new AbortController();
    const first = q.run(call({ signal: controller.signal }), upstream.send('a'));
    const second = q.run(call(), upstream.send('b'));
    controller.abort();
    await new Promise((resolve) => setImmediate(resolve));
    expect(upstream.started).toEqual(['a']); // b still waits: a is still in flight upstream
    await upstream.releaseAll();
    await expect(Promise.all([first, second])).resolves.toEqual(['a', 'b']);
    expect(upstream.maxInFlight).toBe(1);
  });

  it('refuses an already cancelled call without queueing it', async () => {
    const { q } = queues({ concurrency: 1, maxQueue: 1 });
    const upstream = new HeldUpstream();
    expect(await reason(q.run(call({ signal: AbortSignal.abort() }), upstream.send('a')))).toBe('cancelled');
    expect(upstream.started).toEqual([]);
  });

  it("queues the gateway's own calls but never refuses them", async () => {
    const { q, refused } = queues({ concurrency: 1, maxQueue: 0 });
    const upstream = new HeldUpstream();
    const own = ['a', 'b', 'c'].map((label) => q.run(call({ refusable: false }), upstream.send(label)));
    expect(await reason(q.run(call(), upstream.send('d')))).toBe('upstream_busy');
    await upstream.releaseAll();
    await expect(Promise.all(own)).resolves.toEqual(['a', 'b', 'c']);
    expect(upstream.maxInFlight).toBe(1);
    expect(refused).toEqual(['docs']);
  });

  it('counts a call waiting for the rate window as waiting', async () => {
    // One start per 2 s: the second call cannot start now although a concurrency slot is free.
    const { q } = queues({ concurrency: 5, maxQueue: 0, requestsPerSecond: 0.5 });
    const upstream = new HeldUpstream();
    const first = q.run(call(), upstream.send('a'));
    expect(await reason(q.run(call(), upstream.send('b')))).toBe('upstream_busy');
    await upstream.releaseAll();
    await expect(first).resolves.toBe('a');
    expect(upstream.started).toEqual(['a']);
  });

  it('keeps one independent queue per upstream, and leaves upstreams without limits alone', async () => {
    const { q } = queues({ concurrency: 1, maxQueue: 0 });
    const upstream = new HeldUpstream();
    const calls = [
      q.run(call({ upstream: 'docs' }), upstream.send('docs')),
      q.run(call({ upstream: 'wiki' }), upstream.send('wiki')),
      q.run(call({ upstream: 'free' }), upstream.send('free-1')),
      q.run(call({ upstream: 'free' }), upstream.send('free-2')),
    ];
    expect(upstream.maxInFlight).toBe(4);
    expect(await reason(q.run(call({ upstream: 'wiki' }), upstream.send('x')))).toBe('upstream_busy');
    expect([...q.waitingByUpstream()]).toEqual([
      ['docs', 0],
      ['wiki', 0],
    ]);
    await upstream.releaseAll();
    await expect(Promise.all(calls)).resolves.toEqual(['docs', 'wiki', 'free-1', 'free-2']);
  });

  it('on close fails waiting calls, refuses new ones and lets running ones finish', async () => {
    const { q } = queues({ concurrency: 1, maxQueue: 5 });
    const upstream = new HeldUpstream();
    const running = q.run(call(), upstream.send('a'));
    const waiting = q.run(call({ refusable: false }), upstream.send('b'));
    q.close();
    expect(await reason(waiting)).toBe('upstream_unavailable');
    expect(await reason(q.run(call(), upstream.send('c')))).toBe('upstream_unavailable');
    await upstream.releaseAll();
    await expect(running).resolves.toBe('a');
    expect(upstream.started).toEqual(['a']);
    expect([...q.waitingByUpstream()]).toEqual([]);
  });
});
