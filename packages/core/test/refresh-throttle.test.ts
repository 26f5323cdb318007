import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFRESH_INTERVAL_MS, RefreshThrottle } from '../src/notify/refresh-throttle.js';

const INTERVAL = 500;

/** Lets promise callbacks (a run's completion and what follows it) happen, without moving the clock. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** Runs that record when they start and finish when the test says (`finish()`) or at once (`quick`). */
function recorder() {
  const starts: Array<{ label: string; at: number }> = [];
  const finishers: Array<() => void> = [];
  const slow =
    (label = 'run') =>
    () => {
      starts.push({ label, at: Date.now() });
      return new Promise<void>((resolve) => finishers.push(resolve));
    };
  const quick =
    (label = 'run') =>
    async () => {
      starts.push({ label, at: Date.now() });
    };
  const finish = async () => {
    finishers.shift()?.();
    await settle();
  };
  return {
    starts,
    slow,
    quick,
    finish,
    at: () => starts.map((s) => s.at),
    labels: () => starts.map((s) => s.label),
  };
}

describe('RefreshThrottle', () => {
  let throttle: RefreshThrottle;

  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    throttle = new RefreshThrottle(INTERVAL, () => Date.now());
  });

  afterEach(() => {
    throttle.close();
    vi.useRealTimers();
  });

  it('defaults to one refresh per 500 ms', () => {
    expect(REFRESH_INTERVAL_MS).toBe(500);
  });

  it('runs the first trigger at once', () => {
    const r = recorder();
    throttle.trigger('docs tools', r.quick());
    expect(r.at()).toEqual([0]);
  });

  it('follows triggers during a run with exactly one more run, a full interval after the first started', async () => {
    const r = recorder();
    throttle.trigger('k', r.slow());
    await vi.advanceTimersByTimeAsync(50);
    for (let i = 0; i < 100; i++) throttle.trigger('k', r.slow());
    await vi.advanceTimersByTimeAsync(50);
    await r.finish();
    expect(r.at()).toEqual([0]);
    await vi.advanceTimersByTimeAsync(INTERVAL - 101);
    expect(r.at()).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.at()).toEqual([0, INTERVAL]);
    await r.finish();
    await vi.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(r.at()).toEqual([0, INTERVAL]);
  });

  it('starts the follow-up run as soon as a run longer than the interval ends', async () => {
    const r = recorder();
    throttle.trigger('k', r.slow());
    await vi.advanceTimersByTimeAsync(100);
    throttle.trigger('k', r.slow());
    await vi.advanceTimersByTimeAsync(700);
    await r.finish();
    expect(r.at()).toEqual([0, 800]);
  });

  it('coalesces triggers during the wait into one run of the latest `run`', async () => {
    const r = recorder();
    throttle.trigger('k', r.quick('first'));
    await settle();
    for (const [at, label] of [
      [100, 'a'],
      [200, 'b'],
      [300, 'c'],
    ] as const) {
      await vi.advanceTimersByTimeAsync(at - Date.now());
      throttle.trigger('k', r.quick(label));
    }
    await vi.advanceTimersByTimeAsync(5 * INTERVAL);
    expect(r.starts).toEqual([
      { label: 'first', at: 0 },
      { label: 'c', at: INTERVAL },
    ]);
  });

  it('runs the latest `run` given during a run', async () => {
    const r = recorder();
    throttle.trigger('k', r.slow('first'));
    throttle.trigger('k', r.slow('x'));
    throttle.trigger('k', r.slow('y'));
    await r.finish();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(r.labels()).toEqual(['first', 'y']);
  });

  it('throttles each key on its own', async () => {
    const r = recorder();
    throttle.trigger('a tools', r.quick('a'));
    throttle.trigger('b tools', r.quick('b'));
    throttle.trigger('a prompts', r.quick('a prompts'));
    await settle();
    await vi.advanceTimersByTimeAsync(100);
    throttle.trigger('a tools', r.quick('a again'));
    throttle.trigger('c tools', r.quick('c'));
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(r.starts).toEqual([
      { label: 'a', at: 0 },
      { label: 'b', at: 0 },
      { label: 'a prompts', at: 0 },
      { label: 'c', at: 100 },
      { label: 'a again', at: INTERVAL },
    ]);
  });

  it('keeps going after a run that fails or throws', async () => {
    const r = recorder();
    throttle.trigger('k', () => Promise.reject(new Error('upstream down')));
    throttle.trigger('k', r.quick('after rejection'));
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(r.at()).toEqual([INTERVAL]);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    // A `run` that throws before returning its promise must not escape trigger() nor wedge the key.
    expect(() =>
      throttle.trigger('k', () => {
        throw new Error('sync');
      }),
    ).not.toThrow();
    throttle.trigger('k', r.quick('after throw'));
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(r.labels()).toEqual(['after rejection', 'after throw']);
  });

  it('runs a bounded number of times in a storm and never misses the last change', async () => {
    const r = recorder();
    let last = 0;
    for (let t = 0; t < 2000; t++) {
      await vi.advanceTimersByTimeAsync(1);
      last = Date.now();
      throttle.trigger('k', () => {
        r.starts.push({ label: 'run', at: Date.now() });
        return new Promise<void>((resolve) => setTimeout(resolve, 30));
      });
    }
    await vi.advanceTimersByTimeAsync(10 * INTERVAL);
    const at = r.at();
    expect(at.length).toBeLessThanOrEqual(2000 / INTERVAL + 1);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(INTERVAL);
    expect(at.at(-1)).toBeGreaterThanOrEqual(last);
  });

  // Regression: the "forget this idle key" timer of an earlier run deleted the key after a later run had
  // started, so the next trigger ran at once instead of after the later run's interval.
  it('forgets an idle key only after its latest run’s interval', async () => {
    const r = recorder();
    throttle.trigger('k', r.slow('long'));
    await vi.advanceTimersByTimeAsync(2000);
    await r.finish(); // ended past its interval: nothing left to wait for
    throttle.trigger('k', r.quick('quick')); // before the loop comes back to timers
    await settle();
    await vi.advanceTimersByTimeAsync(1);
    throttle.trigger('k', r.quick('too soon?'));
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(r.starts).toEqual([
      { label: 'long', at: 0 },
      { label: 'quick', at: 2000 },
      { label: 'too soon?', at: 2000 + INTERVAL },
    ]);
  });

  it('close() cancels waiting runs, runs nothing after, and ignores later triggers', async () => {
    const r = recorder();
    throttle.trigger('waiting', r.quick('w1'));
    await settle();
    throttle.trigger('waiting', r.quick('w2'));
    throttle.trigger('running', r.slow('r1'));
    throttle.trigger('running', r.slow('r2'));
    throttle.close();
    await r.finish();
    throttle.trigger('new', r.quick('n'));
    await vi.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(r.labels()).toEqual(['w1', 'r1']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
