import { Cancellation } from '../cancellation.js';
import type { SessionSink } from '../context.js';
import type { GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import type { Logger } from '../logger.js';
import { requestContext } from './request-context.js';

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
  /**
   * The latest subscribe or unsubscribe per URI (resolving to its error, if any): the next one waits for
   * it, and a listen joining a followed URI shares its subscribe's verdict.
   */
  readonly #last = new Map<string, Promise<GatewayError | undefined>>();
  readonly #gateway: Gateway;
  readonly #sink: SessionSink;
  readonly #log: Logger;

  constructor(gateway: Gateway, sink: SessionSink, logger: Logger) {
    this.#gateway = gateway;
    this.#sink = sink;
    this.#log = logger;
  }

  /**
   * Feed every inbound message of the session here, before the SDK sees it. For a listen it returns
   * the verdict of {@link hold} (a `forbidden` error means: refuse the listen, do not serve it).
   */
  observe(message: unknown): Promise<GatewayError | undefined> | undefined {
    const m = message as { method?: unknown; id?: unknown; params?: Record<string, unknown> };
    if (m.method === 'subscriptions/listen' && (typeof m.id === 'string' || typeof m.id === 'number')) {
      return this.hold(m.id, listenedUris(m));
    } else if (m.method === 'notifications/cancelled') {
      const id = m.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.release(id);
    }
  }

  /**
   * Holds the upstream subscriptions of one listen stream, under a key unique to it. Resolves once
   * they are established (or failed); a URI the session may not subscribe to (`forbidden`, e.g. from
   * an access plugin) releases the whole listen and resolves to that error, for the caller to refuse
   * the stream. Other failures (an upstream down) are logged and the stream is still served.
   */
  async hold(key: ListenId, uris: readonly string[]): Promise<GatewayError | undefined> {
    if (uris.length === 0 || this.#byListen.has(key)) return undefined;
    this.#byListen.set(key, [...uris]);
    const errors = await Promise.all(uris.map((uri) => this.#adjust(uri, +1)));
    const refused = errors.find((e) => e?.reason === 'forbidden');
    if (refused) this.release(key);
    return refused;
  }

  /** Whether a listen is held (false once released, e.g. cancelled while its subscriptions were set up). */
  holding(key: ListenId): boolean {
    return this.#byListen.has(key);
  }

  release(id: ListenId): void {
    const uris = this.#byListen.get(id);
    if (!uris) return;
    this.#byListen.delete(id);
    for (const uri of uris) void this.#adjust(uri, -1);
  }

  /**
   * Counts one more (or one fewer) listen on `uri`; the first subscribes upstream, the last
   * unsubscribes. A URI's subscribes and unsubscribes reach the gateway one after the other, in order,
   * and an unsubscribe follows only a subscribe that succeeded (a refused one left nothing to undo, and
   * must not show up to plugins as an unsubscribe).
   */
  #adjust(uri: string, delta: 1 | -1): Promise<GatewayError | undefined> {
    const before = this.#counts.get(uri) ?? 0;
    const after = before + delta;
    if (after <= 0) this.#counts.delete(uri);
    else this.#counts.set(uri, after);
    const previous = this.#last.get(uri) ?? Promise.resolve(undefined);
    if (!((before === 0 && after === 1) || (before === 1 && after === 0))) {
      // Joining a URI already followed: its subscribe may still be in flight; share its verdict.
      return delta > 0 ? previous : Promise.resolve(undefined);
    }
    const done =
      delta > 0
        ? previous.then(() => this.#send('resources/subscribe', uri))
        : previous.then((failed) => (failed ? undefined : this.#send('resources/unsubscribe', uri)));
    this.#last.set(uri, done);
    if (delta < 0) {
      void done.then(() => {
        if (this.#last.get(uri) === done) this.#last.delete(uri);
      });
    }
    return done;
  }

  #send(
    method: 'resources/subscribe' | 'resources/unsubscribe',
    uri: string,
  ): Promise<GatewayError | undefined> {
    return this.#gateway
      .handle(
        requestContext({
          method,
          params: { uri },
          session: this.#sink,
          signal: new Cancellation(),
          notifyRelated: async () => {},
        }),
      )
      .then((outcome) => {
        if (outcome.ok) return undefined;
        this.#log.warn('listen subscription failed', { uri, method, error: outcome.error.message });
        return outcome.error;
      });
  }
}
