import { describe, expect, it } from 'vitest';
import { fixedWindowFor } from '../src/fixed-window.js';

const window = (requestsPerSecond: number, burst: number) =>
  fixedWindowFor({ requestsPerSecond, burst, maxClients: 1 });

describe('fixedWindowFor: a token bucket as a whole-second fixed window', () => {
  it('keeps burst and rate exactly when burst / requestsPerSecond is a whole number of seconds', () => {
    expect(window(10, 20)).toEqual({ points: 20, durationSec: 2, exact: true });
    expect(window(10, 10)).toEqual({ points: 10, durationSec: 1, exact: true });
    expect(window(0.5, 1)).toEqual({ points: 1, durationSec: 2, exact: true });
    expect(window(0.05, 2)).toEqual({ points: 2, durationSec: 40, exact: true });
    expect(window(0.1, 3)).toEqual({ points: 3, durationSec: 30, exact: true });
    expect(window(1, 3)).toEqual({ points: 3, durationSec: 3, exact: true });
  });

  it('rounds to whole seconds (at least one) and keeps the rate as closely as that allows', () => {
    // Under a second: one second of the sustained rate.
    expect(window(5, 3)).toEqual({ points: 5, durationSec: 1, exact: false });
    expect(window(100, 10)).toEqual({ points: 100, durationSec: 1, exact: false });
    // 1.5 s rounds to 2 s: 4 per 2 s keeps 2/s.
    expect(window(2, 3)).toEqual({ points: 4, durationSec: 2, exact: false });
    // 3.33 s rounds to 3 s: 1 per 3 s, the nearest whole request.
    expect(window(0.3, 1)).toEqual({ points: 1, durationSec: 3, exact: false });
  });
});
