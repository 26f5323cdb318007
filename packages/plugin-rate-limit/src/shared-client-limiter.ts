import type { Store } from '@switchyard/core';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ClientLimiter, ClientVerdict } from './client-limiter.js';
import type { FixedWindow } from './fixed-window.js';

const ADMITTED: ClientVerdict = { ok: true };

/**
 * One budget per identity shared by every replica: rate-limiter-flexible's `RateLimiterRedis` on the
 * store's own ioredis client (`store.native`, kind `redis`), counting `window.points` requests per
 * `window.durationSec` seconds in one atomic Redis script per request, under the keys
 * `${store.native.prefix}client:<identity>`.
 *
 * Redis is not asked while the store reports itself unavailable (down, or gone silent), nor while the
 * client is not connected (`rejectIfRedisNotReady`); a call it does not answer fails after the client's
 * command timeout. Then `store.onUnavailable` decides: `local` charges a per-replica
 * `RateLimiterMemory` of the same shape (the insurance limiter rate-limiter-flexible would use), and
 * `refuse` answers `{ ok: false, unavailable }`. Once the store is available again every request counts
 * in Redis again by itself.
 */
export class SharedClientLimiter implements ClientLimiter {
  readonly #store: Store;
  readonly #redis: RateLimiterRedis;
  readonly #local: RateLimiterMemory | undefined;
  #checking = false;

  constructor(store: Store, window: FixedWindow) {
    const native = store.native;
    if (!store.shared || native?.kind !== 'redis')
      throw new Error(`a shared per-client limit needs a shared Redis store, got the ${store.driver} store`);
    const shape = {
      keyPrefix: `${native.prefix}client`,
      points: window.points,
      duration: window.durationSec,
    };
    this.#store = store;
    this.#local = store.onUnavailable === 'local' ? new RateLimiterMemory(shape) : undefined;
    // No insuranceLimiter here: the fallback below also covers a store known to be unavailable, which
    // the library cannot see (the client can be connected to a Redis that stopped answering).
    this.#redis = new RateLimiterRedis({
      ...shape,
      storeClient: native.client,
      // ioredis, not node-redis.
      useRedisPackage: false,
      rejectIfRedisNotReady: true,
    });
  }

  async consume(identity: string): Promise<ClientVerdict> {
    if (!this.#store.available) return this.#withoutStore(identity, 'the store is unavailable');
    try {
      await this.#redis.consume(identity);
      return ADMITTED;
    } catch (error) {
      if (error instanceof RateLimiterRes) return refused(error);
      this.#checkStore();
      return this.#withoutStore(identity, describe(error));
    }
  }

  close(): void {
    // The Redis client belongs to the store; the keys expire with their window.
  }

  /** The per-replica budget (`local`), or a refusal naming why the store could not be used (`refuse`). */
  async #withoutStore(identity: string, why: string): Promise<ClientVerdict> {
    if (!this.#local) return { ok: false, unavailable: `per-client rate limit: ${why}` };
    try {
      await this.#local.consume(identity);
      return ADMITTED;
    } catch (error) {
      if (error instanceof RateLimiterRes) return refused(error);
      return { ok: false, unavailable: `per-client rate limit: ${describe(error)}` };
    }
  }

  /**
   * After a Redis call failed, asks the store one command of its own (one at a time): if Redis has
   * stopped answering, that command times out as well and the store marks itself unavailable until a
   * ping gets through, so later requests skip Redis at once instead of each waiting for the timeout.
   */
  #checkStore(): void {
    if (this.#checking || !this.#store.available) return;
    this.#checking = true;
    this.#store
      .get('client')
      .catch(() => {})
      .finally(() => {
        this.#checking = false;
      });
  }
}

/**
 * Over budget: rate-limiter-flexible rejects with the window's state, `msBeforeNext` being the time
 * until the window ends (the key's PTTL in Redis). Redis drops a key only once its expiry time has
 * passed (now > expiry), so the first request that finds the window gone comes 1 ms after that.
 */
function refused(state: RateLimiterRes): ClientVerdict {
  return { ok: false, retryAfterMs: Math.max(0, state.msBeforeNext) + 1 };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
