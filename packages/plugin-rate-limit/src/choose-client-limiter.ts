import type { Logger, Store, UnavailablePolicy } from '@switchyard/core';
import type { ClientLimiter } from './client-limiter.js';
import { fixedWindowFor } from './fixed-window.js';
import { MemoryClientLimiter } from './memory-client-limiter.js';
import type { ResolvedClientLimits } from './options.js';
import { SharedClientLimiter } from './shared-client-limiter.js';

/**
 * Chooses how `perClient` is enforced, once, at setup: with a shared Redis store (`store.shared` and
 * `store.native.kind === 'redis'`), one budget per identity across every replica
 * (`SharedClientLimiter`, keys under `${store.native.prefix}client`); otherwise the in-memory token
 * buckets of this replica (`MemoryClientLimiter`), exactly as without a store.
 */
export function chooseClientLimiter(
  limits: ResolvedClientLimits,
  store: Store,
  logger: Logger,
): ClientLimiter {
  if (!store.shared || store.native?.kind !== 'redis') {
    if (store.shared)
      logger.warn('per-client limits stay per replica: the shared store is not Redis', {
        driver: store.driver,
      });
    return new MemoryClientLimiter(limits);
  }
  const window = fixedWindowFor(limits);
  const shared = new SharedClientLimiter(store, window);
  const fields = {
    requestsPerSecond: limits.requestsPerSecond,
    burst: limits.burst,
    window: { requests: window.points, seconds: window.durationSec },
    onUnavailable: store.onUnavailable,
  };
  if (window.exact) logger.debug('per-client limits: one budget across replicas in Redis', fields);
  else
    logger.warn(
      'per-client limits: one budget across replicas in Redis, rounded to a whole-second window ' +
        '(a burst of requestsPerSecond × a whole number of seconds keeps both exactly)',
      fields,
    );
  const stopReporting = reportAvailability(store, store.onUnavailable, logger);
  return {
    consume: (identity) => shared.consume(identity),
    close: () => {
      stopReporting();
      shared.close();
    },
  };
}

/** Logs each change of the store's availability as it affects per-client limits; returns how to stop. */
function reportAvailability(store: Store, onUnavailable: UnavailablePolicy, logger: Logger): () => void {
  return store.onAvailability((available) => {
    if (available) logger.info('per-client limits: one budget across replicas again (the store answers)');
    else if (onUnavailable === 'local')
      logger.warn('per-client limits: a budget per replica while the store does not answer');
    else
      logger.warn('per-client limits: refusing requests (store_unavailable) while the store does not answer');
  });
}
