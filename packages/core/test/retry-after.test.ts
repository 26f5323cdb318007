import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from '../src/transports/upstream/retry-after.js';

describe('retryAfterMs', () => {
  const now = Date.parse('Sun, 29 Nov 2026 05:00:00 GMT');

  it('reads delta-seconds and HTTP-dates, a date in the past as 0', () => {
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sun, 29 Nov 2026 05:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 04:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(['3', '9'], now)).toBe(3000);
  });

  it('caps a wait at a day', () => {
    expect(retryAfterMs('99999999999999999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('says nothing of a value that is no delay', () => {
    for (const value of [undefined, '', '-5', '1.5', 'soon', 'Sun, garbage', '[object Object]']) {
      expect(retryAfterMs(value, now), String(value)).toBeUndefined();
    }
  });
});
