import { MemoryStore } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../src/byte-budget.js';

// The windowed byte bound on the in-memory store's counters, with a clock the test moves.

function budget(maxBytes: number, windowMs: number) {
  const store = new MemoryStore();
  const clock = { now: 10 * windowMs };
  const counters = store.counters;
  if (!counters) throw new Error('the memory store has counters');
  return { clock, budget: new ByteBudget(store, counters, maxBytes, windowMs, () => clock.now) };
}

describe('ByteBudget', () => {
  it('admits writes while the current and previous windows stay within the bound', async () => {
    const { budget: b } = budget(1000, 1000);
    expect(await b.admit(400)).toBe(true);
    expect(await b.admit(600)).toBe(true);
    expect(await b.admit(1)).toBe(false);
    expect(b.lastSeen).toBe(1000);
  });

  it('counts the previous window (its entries may still be alive), not the one before', async () => {
    const { budget: b, clock } = budget(1000, 1000);
    expect(await b.admit(900)).toBe(true);
    clock.now += 1000; // next window: the 900 bytes may live until its middle
    expect(await b.admit(200)).toBe(false);
    expect(await b.admit(100)).toBe(true);
    clock.now += 1000; // the 900 bytes have expired for sure
    expect(await b.admit(800)).toBe(true);
    expect(await b.admit(101)).toBe(false);
  });

  it('gives back what it refused, and never admits an entry larger than the bound', async () => {
    const { budget: b } = budget(1000, 1000);
    expect(await b.admit(1001)).toBe(false);
    expect(await b.admit(700)).toBe(true);
    expect(await b.admit(400)).toBe(false);
    expect(await b.admit(300)).toBe(true);
  });

  it('never lets concurrent writers past the bound together', async () => {
    const { budget: b } = budget(1000, 1000);
    const admitted = await Promise.all(Array.from({ length: 10 }, () => b.admit(300)));
    expect(admitted.filter(Boolean).length).toBeLessThanOrEqual(3);
  });
});
