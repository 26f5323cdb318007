import { definePlugin, type PluginGateway, type UpstreamNotification } from '@switchyard/core';
import { CacheMetrics } from './metrics.js';
import { cacheOptions } from './options.js';
import { PACKAGE } from './package-info.js';
import { ReadThrough } from './read-through.js';
import { ResourceCache, type Watcher } from './resource-cache.js';
import { SecondLevel } from './second-level.js';

export type { CacheOptions } from './options.js';

/** How long the `ready` hook waits for the invalidation channel to be heard (then starts anyway). */
const LISTENING_TIMEOUT_MS = 2_000;

/**
 * `@switchyard/plugin-cache`: an LRU of `resources/read` results, bounded in bytes, that coalesces
 * concurrent identical reads and stays coherent through upstream subscriptions. With a shared store
 * (`store.redis`, DESIGN §12) it keeps a second level there, bounded in bytes too, and every replica
 * hears every other replica's invalidations (see SecondLevel). Nothing else is cached:
 * tool calls, prompt gets and multi round-trip (input-required) reads always reach their upstream. List it after access
 * control (a hit skips every plugin listed after the cache) and after the audit log (which reads the
 * cache status the cache leaves in `ctx.state`).
 *
 * @example
 * // switchyard.json
 * { "plugins": [["@switchyard/plugin-cache", { "maxBytes": 16777216, "ttlMs": 60000 }]] }
 */
export default definePlugin({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  options: cacheOptions,
  async setup(resolved, ctx) {
    const { gateway, logger } = ctx;
    let metrics: CacheMetrics | undefined;
    let cache: ResourceCache | undefined;
    const l2 = await SecondLevel.open({
      store: ctx.store,
      maxBytes: resolved.l2MaxBytes ?? resolved.maxBytes,
      ttlMs: resolved.ttlMs,
      // Another replica invalidated: evict here too (its token in the store is already replaced).
      onRemote: (invalidation) =>
        'all' in invalidation
          ? cache?.invalidateAll('remote')
          : cache?.invalidate(invalidation.uri, 'remote'),
      logger,
    });
    const updates = new RecentUpdates();
    cache = new ResourceCache({
      maxBytes: resolved.maxBytes,
      maxEntries: resolved.maxEntries,
      lingerMs: resolved.lingerMs,
      watcher: resolved.coherent ? watcherOf(gateway) : () => undefined,
      onEvict: (reason) => metrics?.evicted(reason),
      onWatchError: (uri, action, error) =>
        logger.debug(`could not ${action} a watch; the entry relies on its TTL`, {
          uri,
          error: error instanceof Error ? error.message : String(error),
        }),
      ...(l2 && {
        // A disconnect (an update's own watch callback follows the notification hook: skip those).
        onUpstreamDown: (uri: string) => void (updates.has(uri) ? undefined : l2.invalidate(uri)),
        onUnwatched: (uri: string) => void l2.unwatched(uri),
      }),
    });
    const l1 = cache;
    metrics = new CacheMetrics(ctx.meter, { bytes: () => l1.bytes, entries: () => l1.entries });
    const reads = new ReadThrough(l1, metrics, resolved.ttlMs, l2);
    // Invalidations may have been missed while the store was away, or are no longer heard: start over.
    const stopWatchingStore = l2?.onAvailability(() => l1.invalidateAll('store'));
    return {
      request: (request, next) => reads.handle(request, next),
      // The other replicas hear of an update before the sessions do (the gateway waits for this promise).
      notification: (notification) => {
        const uri = evictOnUpdate(notification, gateway, l1);
        if (uri === undefined || !l2) return;
        updates.add(uri);
        return l2.invalidate(uri);
      },
      ...(l2 && {
        ready: async () => {
          if (!(await l2.listening(LISTENING_TIMEOUT_MS)))
            logger.warn('not hearing the invalidation channel yet; other replicas may serve stale reads');
        },
      }),
      stats: () => ({
        bytes: l1.bytes,
        entries: l1.entries,
        maxBytes: resolved.maxBytes,
        ...l2?.stats(),
      }),
      close: async () => {
        reads.close();
        stopWatchingStore?.();
        // A reload (or a replica leaving): every replica drops what this configuration cached.
        await l2?.close();
        await l1.close();
        metrics?.close();
      },
    };
  },
});

/**
 * The URIs the notification hook has just invalidated: the gateway calls the watch callbacks of an
 * `updated` right after the plugins' hooks, in the same turn, so a callback for a URI in here is that
 * update (already handled), not a disconnect. Forgotten at the next microtask.
 */
class RecentUpdates {
  readonly #uris = new Set<string>();

  add(uri: string): void {
    if (this.#uris.size === 0) queueMicrotask(() => this.#uris.clear());
    this.#uris.add(uri);
  }

  has(uri: string): boolean {
    return this.#uris.has(uri);
  }
}

/** Watches a URI when its upstream is connected and offers subscriptions. */
function watcherOf(gateway: PluginGateway): Watcher {
  return (uri, onInvalidate) => {
    const route = gateway.route(uri);
    if (!route || !gateway.canSubscribe(route.upstream)) return undefined;
    return gateway.watch(uri, onInvalidate);
  };
}

/**
 * Every upstream `updated` evicts the URI, watched or not (returns the exposed URI it evicted). The gateway shows plugins a notification
 * before it calls watchers, so evictions caused by updates are counted as `update` here, and the watch
 * callback that follows (finding nothing left) only ever evicts for a disconnect.
 */
function evictOnUpdate(
  notification: UpstreamNotification,
  gateway: PluginGateway,
  cache: ResourceCache,
): string | undefined {
  if (notification.method !== 'notifications/resources/updated') return undefined;
  const uri = notification.params.uri;
  if (typeof uri !== 'string') return undefined;
  let exposed: string;
  try {
    exposed = gateway.exposeUri(notification.upstream, uri);
  } catch {
    return undefined;
  }
  cache.invalidate(exposed, 'update');
  return exposed;
}
