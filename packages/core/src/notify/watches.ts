import type { Logger } from '../logger.js';
import type { SubscriptionTable } from '../subscriptions.js';
import type { RequestOrigin } from '../upstream/origin.js';

interface Watch {
  upstream: string;
  onInvalidate: () => void;
}

/**
 * Plugin watches (see PluginGateway.watch): coherent upstream subscriptions held as pseudo-sessions in
 * the same reference-counted table as client subscriptions, invalidated on `updated` and whenever the
 * upstream drops (updates may have been missed).
 */
export class PluginWatches {
  readonly #watches = new Map<string, Watch>();
  readonly #subscriptions: SubscriptionTable<RequestOrigin>;
  readonly #log: Logger;
  #seq = 0;

  constructor(subscriptions: SubscriptionTable<RequestOrigin>, logger: Logger) {
    this.#subscriptions = subscriptions;
    this.#log = logger;
  }

  /** Holds `uri` of `upstream` until the returned release is called. */
  async watch(upstream: string, uri: string, onInvalidate: () => void): Promise<() => Promise<void>> {
    const id = `$watch:${++this.#seq}`;
    this.#watches.set(id, { upstream, onInvalidate });
    try {
      await this.#subscriptions.subscribe(id, upstream, uri, { sessionId: id, notify: async () => {} });
    } catch (error) {
      this.#watches.delete(id);
      throw error;
    }
    return async () => {
      if (!this.#watches.delete(id)) return;
      await this.#subscriptions.unsubscribe(id, upstream, uri);
    };
  }

  /** Invalidates the watch held under subscriber `id`; false when `id` is not a watch (a session). */
  updated(id: string): boolean {
    const watch = this.#watches.get(id);
    if (!watch) return false;
    this.#invalidate(watch);
    return true;
  }

  /** Invalidates every watch on `upstream` (it dropped: updates may have been missed). */
  upstreamDown(upstream: string): void {
    for (const watch of this.#watches.values()) if (watch.upstream === upstream) this.#invalidate(watch);
  }

  #invalidate(watch: Watch): void {
    try {
      watch.onInvalidate();
    } catch (error) {
      this.#log.warn('plugin watch callback failed', { error: String(error) });
    }
  }
}
