import { definePlugin, type PluginGateway, type UpstreamNotification } from '@switchyard/core';
import { CacheMetrics } from './metrics.js';
import { type CacheOptions, resolveCacheOptions } from './options.js';
import { PACKAGE } from './package-info.js';
import { ReadThrough } from './read-through.js';
import { ResourceCache, type Watcher } from './resource-cache.js';

export type { CacheOptions } from './options.js';

/**
 * `@switchyard/plugin-cache`: an LRU of `resources/read` results, bounded in bytes, that coalesces
 * concurrent identical reads and stays coherent through upstream subscriptions. Nothing else is cached:
 * tool calls, prompt gets and multi round-trip (input-required) reads always reach their upstream. List it after access
 * control (a hit skips every plugin listed after the cache) and after the audit log (which reads the
 * cache status the cache leaves in `ctx.state`).
 *
 * @example
 * // switchyard.json
 * { "plugins": [["@switchyard/plugin-cache", { "maxBytes": 16777216, "ttlMs": 60000 }]] }
 */
export default definePlugin<CacheOptions>({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  setup(options, ctx) {
    const resolved = resolveCacheOptions(options);
    const { gateway, logger } = ctx;
    let metrics: CacheMetrics | undefined;
    const cache = new ResourceCache({
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
    });
    metrics = new CacheMetrics(ctx.meter, { bytes: () => cache.bytes, entries: () => cache.entries });
    const reads = new ReadThrough(cache, metrics, resolved.ttlMs);
    return {
      request: (request, next) => reads.handle(request, next),
      notification: (notification) => evictOnUpdate(notification, gateway, cache),
      stats: () => ({ bytes: cache.bytes, entries: cache.entries, maxBytes: resolved.maxBytes }),
      close: async () => {
        reads.close();
        await cache.close();
        metrics?.close();
      },
    };
  },
});

/** Watches a URI when its upstream is connected and offers subscriptions. */
function watcherOf(gateway: PluginGateway): Watcher {
  return (uri, onInvalidate) => {
    const route = gateway.route(uri);
    if (!route || !gateway.canSubscribe(route.upstream)) return undefined;
    return gateway.watch(uri, onInvalidate);
  };
}

/**
 * Every upstream `updated` evicts the URI, watched or not. The gateway shows plugins a notification
 * before it calls watchers, so evictions caused by updates are counted as `update` here, and the watch
 * callback that follows (finding nothing left) only ever evicts for a disconnect.
 */
function evictOnUpdate(
  notification: UpstreamNotification,
  gateway: PluginGateway,
  cache: ResourceCache,
): void {
  if (notification.method !== 'notifications/resources/updated') return;
  const uri = notification.params.uri;
  if (typeof uri !== 'string') return;
  let exposed: string;
  try {
    exposed = gateway.exposeUri(notification.upstream, uri);
  } catch {
    return;
  }
  cache.invalidate(exposed, 'update');
}
