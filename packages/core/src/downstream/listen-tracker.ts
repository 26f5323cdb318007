import type { SessionSink } from '../context.js';
import type { Gateway } from '../gateway.js';
import type { Logger } from '../logger.js';

type ListenId = string | number;

/** The resource URIs a `subscriptions/listen` request asks to follow. */
export function listenedUris(message: unknown): string[] {
  const params = (message as { params?: { notifications?: { resourceSubscriptions?: unknown } } }).params;
  const uris = params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
}

/**
 * Watches a modern session's `subscriptions/listen` requests (the SDK serves the stream itself) and
 * holds the matching upstream subscriptions through the gateway, for as long as a listen wants them:
 * until the client cancels it or the session closes.
 */
export class ListenTracker {
  readonly #byListen = new Map<ListenId, string[]>();
  readonly #counts = new Map<string, number>();
  readonly #gateway: Gateway;
  readonly #sink: SessionSink;
  readonly #log: Logger;

  constructor(gateway: Gateway, sink: SessionSink, logger: Logger) {
    this.#gateway = gateway;
    this.#sink = sink;
    this.#log = logger;
  }

  /** Feed every inbound message of the session here, before the SDK sees it. */
  observe(message: unknown): void {
    const m = message as { method?: unknown; id?: unknown; params?: Record<string, unknown> };
    if (m.method === 'subscriptions/listen' && (typeof m.id === 'string' || typeof m.id === 'number')) {
      this.hold(m.id, listenedUris(m));
    } else if (m.method === 'notifications/cancelled') {
      const id = m.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.release(id);
    }
  }

  /** Holds the upstream subscriptions of one listen stream, under a key unique to it. */
  hold(key: ListenId, uris: readonly string[]): void {
    if (uris.length === 0 || this.#byListen.has(key)) return;
    this.#byListen.set(key, [...uris]);
    for (const uri of uris) this.#adjust(uri, +1);
  }

  release(id: ListenId): void {
    const uris = this.#byListen.get(id);
    if (!uris) return;
    this.#byListen.delete(id);
    for (const uri of uris) this.#adjust(uri, -1);
  }

  #adjust(uri: string, delta: 1 | -1): void {
    const before = this.#counts.get(uri) ?? 0;
    const after = before + delta;
    if (after <= 0) this.#counts.delete(uri);
    else this.#counts.set(uri, after);
    if ((before === 0 && after === 1) || (before === 1 && after === 0)) {
      const method = delta > 0 ? 'resources/subscribe' : 'resources/unsubscribe';
      void this.#gateway
        .handle({
          method,
          params: { uri },
          session: this.#sink,
          signal: new AbortController().signal,
          notifyRelated: async () => {},
          state: new Map(),
        })
        .then((outcome) => {
          if (!outcome.ok)
            this.#log.warn('listen subscription failed', { uri, method, error: outcome.error.message });
        });
    }
  }
}
