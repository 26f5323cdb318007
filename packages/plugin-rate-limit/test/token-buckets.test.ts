import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../src/token-buckets.js';

/** A clock the test moves by hand. */
function fakeClock(start = 1_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function buckets(requestsPerSecond: number, burst: number, maxClients = 100) {
  const clock = fakeClock();
  return { clock, buckets: new TokenBuckets({ requestsPerSecond, burst, maxClients }, clock.now) };
}

function takeMany(b: TokenBuckets, id: string, n: number): boolean[] {
  return Array.from({ length: n }, () => b.take(id).ok);
}

describe('TokenBuckets', () => {
  it('lets a fresh identity spend its burst at once, then refuses', () => {
    const { buckets: b } = buckets(2, 3);
    expect(takeMany(b, 'alice', 4)).toEqual([true, true, true, false]);
  });

  it('says exactly when the next token arrives', () => {
    const { buckets: b, clock } = buckets(2, 2);
    takeMany(b, 'alice', 2);
    expect(b.take('alice')).toEqual({ ok: false, retryAfterMs: 500 });
    clock.advance(200); // 0.4 token earned
    expect(b.take('alice')).toEqual({ ok: false, retryAfterMs: 300 });
    clock.advance(299);
    const almost = b.take('alice');
    expect(almost.ok).toBe(false);
    expect(almost.ok ? 0 : almost.retryAfterMs).toBeCloseTo(1, 6);
    clock.advance(1);
    expect(b.take('alice')).toEqual({ ok: true });
    expect(b.take('alice')).toEqual({ ok: false, retryAfterMs: 500 });
  });

  it('works with fractional rates', () => {
    const { buckets: b, clock } = buckets(0.5, 1);
    expect(b.take('ci')).toEqual({ ok: true });
    expect(b.take('ci')).toEqual({ ok: false, retryAfterMs: 2_000 });
    clock.advance(1_500);
    expect(b.take('ci')).toEqual({ ok: false, retryAfterMs: 500 });
    clock.advance(500);
    expect(b.take('ci')).toEqual({ ok: true });
  });

  it('refills continuously but never beyond the burst', () => {
    const { buckets: b, clock } = buckets(10, 5);
    expect(takeMany(b, 'alice', 5)).toEqual([true, true, true, true, true]);
    clock.advance(300); // 3 tokens
    expect(takeMany(b, 'alice', 4)).toEqual([true, true, true, false]);
    clock.advance(60_000); // long idle: full again, not 600 tokens
    expect(takeMany(b, 'alice', 6)).toEqual([true, true, true, true, true, false]);
  });

  it('keeps one bucket per identity', () => {
    const { buckets: b } = buckets(1, 2);
    expect(takeMany(b, 'alice', 3)).toEqual([true, true, false]);
    expect(takeMany(b, 'bob', 2)).toEqual([true, true]);
    expect(b.take('alice').ok).toBe(false);
    expect(b.take('bob').ok).toBe(false);
  });

  it('never tracks more than maxClients identities, evicting the least recently used', () => {
    const { buckets: b } = buckets(1, 1, 3);
    for (const id of ['a', 'b', 'c']) expect(b.take(id).ok).toBe(true);
    expect(b.take('a').ok).toBe(false); // a is now the most recently used
    expect(b.take('d').ok).toBe(true); // evicts b, the least recently used
    expect(b.size).toBe(3);
    expect(b.take('a').ok).toBe(false); // a was kept, still empty
    for (let i = 0; i < 1_000; i++) b.take(`client-${i}`);
    expect(b.size).toBe(3);
  });

  it('forgets buckets that have refilled to full, as they are the same as fresh ones', () => {
    const { buckets: b, clock } = buckets(1, 2);
    for (const id of ['a', 'b', 'c', 'd']) b.take(id);
    expect(b.size).toBe(4);
    clock.advance(1_000); // every bucket is full again
    b.take('e'); // each request drops the least recently used bucket if it is full: a
    expect(b.size).toBe(4);
    b.take('e'); // b
    b.take('e'); // c
    expect(b.size).toBe(2);
    b.take('e'); // d
    expect(b.size).toBe(1);
    // An evicted identity starts again from a full bucket, which is what it would have had.
    expect(takeMany(b, 'a', 3)).toEqual([true, true, false]);
  });
});
