import type { Logger } from '../logger.js';
import { SubscriptionTable } from '../subscriptions.js';
import type { RequestOrigin } from './origin.js';
import type { UpstreamPool } from './pool.js';

/**
 * The refcounted subscription table over the pool's upstreams: the first holder of a URI subscribes
 * upstream (on behalf of the request that asked), the last one to let go unsubscribes. An upstream a
 * reload removed, or one that is down, has nothing left to unsubscribe from.
 */
export function upstreamSubscriptions(pool: UpstreamPool, log: Logger): SubscriptionTable<RequestOrigin> {
  return new SubscriptionTable<RequestOrigin>({
    subscribe: (upstream, uri, origin) => pool.require(upstream).subscribe(uri, { origin }),
    unsubscribe: async (upstream, uri, origin) => {
      const u = pool.get(upstream);
      if (u?.state !== 'ready') return;
      await u.unsubscribe(uri, { origin }).catch((error) => {
        log.debug('upstream unsubscribe failed', { upstream, uri, error: String(error) });
      });
    },
  });
}
