import type { UnavailablePolicy } from '@switchyard/core';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ClientLimiter, ClientVerdict } from './client-limiter.js';
import type { FixedWindow } from './fixed-window.js';

/** What the shared limiter needs from the gateway's store (`store.native` and its unavailability policy). */
export interface SharedClientLimiterOptions {
  /** The store's ioredis client (`store.native.client`, kind `redis`). */
  readonly client: unknown;
  /** Prefix of the limiter's Redis keys (`${store.native.prefix}client`; each key adds `:<identity>`). */
  readonly keyPrefix: string;
  /** The budget every replica shares (see `fixedWindowFor`). */
  readonly window: FixedWindow;
  /** `local`: a per-replica budget of the same shape while Redis does not answer; `refuse`: refuse. */
  readonly onUnavailable: UnavailablePolicy;
}

const ADMITTED: ClientVerdict = { ok: true };

/**
 * One budget per identity shared by every replica: rate-limiter-flexible's `RateLimiterRedis` on the
 * store's own ioredis client, counting `window.points` requests per `window.durationSec` seconds in one
 * atomic Redis script per request.
 *
 * While Redis is down (the client is not `ready`: refused at once, no waiting) or does not answer
 * within the client's command timeout, `onUnavailable: 'local'` charges a per-replica
 * `RateLimiterMemory` of the same shape instead (rate-limiter-flexible's insurance limiter), and
 * `'refuse'` answers `{ ok: false, unavailable }`. Once the client is ready again every request uses
 * Redis again by itself.
 */
export class SharedClientLimiter implements ClientLimiter {
  readonly #limiter: RateLimiterRedis;

  constructor(options: SharedClientLimiterOptions) {
    const shape = {
      keyPrefix: options.keyPrefix,
      points: options.window.points,
      duration: options.window.durationSec,
    };
    this.#limiter = new RateLimiterRedis({
      ...shape,
      storeClient: options.client,
      // ioredis, not node-redis.
      useRedisPackage: false,
      rejectIfRedisNotReady: true,
      insuranceLimiter: options.onUnavailable === 'local' ? new RateLimiterMemory(shape) : undefined,
    });
  }

  async consume(identity: string): Promise<ClientVerdict> {
    try {
      await this.#limiter.consume(identity);
      return ADMITTED;
    } catch (error) {
      // Over budget: rate-limiter-flexible rejects with the window's state, msBeforeNext being the key's
      // PTTL. Redis drops a key only once its expiry time has passed (now > expiry), so the first request
      // that finds the window gone is one millisecond after the PTTL runs out.
      if (error instanceof RateLimiterRes)
        return { ok: false, retryAfterMs: Math.max(0, error.msBeforeNext) + 1 };
      return { ok: false, unavailable: `per-client rate limit: ${describe(error)}` };
    }
  }

  close(): void {
    // The Redis client belongs to the store; the keys expire with their window.
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
