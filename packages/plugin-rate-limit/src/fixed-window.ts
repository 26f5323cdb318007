import type { ResolvedClientLimits } from './options.js';

/** A fixed-window budget as rate-limiter-flexible counts it: `points` requests per `durationSec` seconds. */
export interface FixedWindow {
  readonly points: number;
  /** Whole seconds (>= 1): Redis expires rate-limiter-flexible's keys in whole seconds. */
  readonly durationSec: number;
  /** True when the window keeps both `burst` and `requestsPerSecond` exactly. */
  readonly exact: boolean;
}

/**
 * Maps a token bucket (`burst` requests at once, refilled at `requestsPerSecond`) onto the fixed window
 * rate-limiter-flexible enforces in Redis: `burst` requests per `burst / requestsPerSecond` seconds.
 * Both give an idle identity `burst` requests at once and the same sustained rate; a fixed window
 * refills all at once when it ends instead of continuously, so up to `2 × burst` requests can land
 * around a window's end.
 *
 * RateLimiterRedis expires its keys in whole seconds (it floors the duration; under one second the key
 * would never expire), so the window is rounded to whole seconds (at least 1) and `points` to the
 * nearest whole number of requests that keeps the rate: exact whenever `burst / requestsPerSecond` is
 * a whole number of seconds (e.g. 20 per 10/s, 10 per 10/s, 1 per 0.5/s), `exact: false` otherwise.
 *
 * @example
 * fixedWindowFor({ requestsPerSecond: 10, burst: 20, maxClients: 1 }); // { points: 20, durationSec: 2, exact: true }
 * fixedWindowFor({ requestsPerSecond: 5, burst: 3, maxClients: 1 });   // { points: 5, durationSec: 1, exact: false }
 */
export function fixedWindowFor(limits: ResolvedClientLimits): FixedWindow {
  const { requestsPerSecond: rate, burst } = limits;
  const durationSec = Math.max(1, Math.round(burst / rate));
  const points = Math.max(1, Math.round(rate * durationSec));
  const exact = points === burst && Math.abs(points / durationSec - rate) <= rate * 1e-6;
  return { points, durationSec, exact };
}
