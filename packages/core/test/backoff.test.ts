import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../src/upstream/backoff.js';

const fixed = (value: number) => () => value;

describe('backoffDelay', () => {
  it('doubles from 250 ms without jitter (random = 0.5)', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) =>
      backoffDelay(attempt, undefined, undefined, fixed(0.5)),
    );
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 16_000]);
  });

  it('treats attempt 0 and negative attempts like the first', () => {
    expect(backoffDelay(0, 250, 30_000, fixed(0.5))).toBe(250);
    expect(backoffDelay(-3, 250, 30_000, fixed(0.5))).toBe(250);
  });

  it('applies at most ±20% jitter', () => {
    expect(backoffDelay(3, 250, 30_000, fixed(0))).toBe(800);
    expect(backoffDelay(3, 250, 30_000, fixed(0.999_999))).toBe(1200);
    expect(backoffDelay(3, 250, 30_000, fixed(0.25))).toBe(900);
    expect(backoffDelay(3, 250, 30_000, fixed(0.75))).toBe(1100);
  });

  it('stays within bounds for any random value and grows on average', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16_807) % 2_147_483_647;
      return (seed - 1) / 2_147_483_646;
    };
    let previousMean = 0;
    for (let attempt = 1; attempt <= 12; attempt++) {
      const exp = Math.min(30_000, 250 * 2 ** (attempt - 1));
      let sum = 0;
      for (let i = 0; i < 100; i++) {
        const delay = backoffDelay(attempt, 250, 30_000, random);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(exp * 0.8));
        expect(delay).toBeLessThanOrEqual(Math.min(30_000, Math.ceil(exp * 1.2)));
        sum += delay;
      }
      const mean = sum / 100;
      if (exp < 30_000) expect(mean).toBeGreaterThan(previousMean);
      previousMean = mean;
    }
  });

  it('caps at maxMs, even with positive jitter and huge attempt numbers', () => {
    expect(backoffDelay(8, 250, 30_000, fixed(0.5))).toBe(30_000);
    expect(backoffDelay(8, 250, 30_000, fixed(0.999_999))).toBe(30_000);
    expect(backoffDelay(8, 250, 30_000, fixed(0))).toBe(24_000);
    expect(backoffDelay(10_000, 250, 30_000, fixed(0.999_999))).toBe(30_000);
    expect(backoffDelay(5, 100, 1000, fixed(0.999_999))).toBe(1000);
  });

  it('honours a custom base and never goes negative', () => {
    expect(backoffDelay(1, 10, 1000, fixed(0.5))).toBe(10);
    expect(backoffDelay(2, 10, 1000, fixed(0.5))).toBe(20);
    expect(backoffDelay(1, 0, 1000, fixed(0))).toBe(0);
  });

  it('uses Math.random by default and stays in the first window', () => {
    for (let i = 0; i < 50; i++) {
      const delay = backoffDelay(1);
      expect(delay).toBeGreaterThanOrEqual(200);
      expect(delay).toBeLessThanOrEqual(300);
    }
  });
});
