/**
 * Performs the upstream side of a subscription: the first subscriber subscribes, the last one leaving
 * unsubscribes. `origin` is whatever the caller passed along (e.g. the request that caused the call).
 */
export interface SubscriptionBackend<O = unknown> {
  subscribe(upstream: string, uri: string, origin?: O): Promise<void>;
  unsubscribe(upstream: string, uri: string, origin?: O): Promise<void>;
}

interface Entry {
  upstream: string;
  uri: string;
  subscribers: Set<string>;
  /** True once the upstream accepted the subscription. */
  active: boolean;
}

const keyOf = (upstream: string, uri: string) => `${upstream}\u0000${uri}`;

/**
 * Reference-counted upstream subscriptions per (upstream, URI) across downstream subscribers
 * (sessions, or internal holders such as a cache). Operations on one key run strictly in order,
 * so a subscribe racing an unsubscribe never leaves the upstream in the wrong state.
 */
export class SubscriptionTable<O = unknown> {
  readonly #entries = new Map<string, Entry>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #bySubscriber = new Map<string, Set<string>>();
  readonly #backend: SubscriptionBackend<O>;

  constructor(backend: SubscriptionBackend<O>) {
    this.#backend = backend;
  }

  /** Adds `subscriber` to (upstream, uri); subscribes upstream if it is the first. Rolls back if the upstream refuses. */
  subscribe(subscriber: string, upstream: string, uri: string, origin?: O): Promise<void> {
    const key = keyOf(upstream, uri);
    // Indexed before the upstream call, so a releaseAll() racing this subscribe queues its release
    // behind it on the same key instead of missing it.
    const keys = this.#index(subscriber);
    const alreadyIndexed = keys.has(key);
    keys.add(key);
    return this.#serial(key, async () => {
      let entry = this.#entries.get(key);
      if (entry?.subscribers.has(subscriber)) return;
      if (!entry) {
        const fresh: Entry = { upstream, uri, subscribers: new Set(), active: false };
        try {
          await this.#backend.subscribe(upstream, uri, origin);
        } catch (error) {
          if (!alreadyIndexed) this.#bySubscriber.get(subscriber)?.delete(key);
          throw error;
        }
        fresh.active = true;
        this.#entries.set(key, fresh);
        entry = fresh;
      }
      entry.subscribers.add(subscriber);
    });
  }

  /** Removes `subscriber`; unsubscribes upstream when it was the last. Unknown pairs are a no-op. */
  unsubscribe(subscriber: string, upstream: string, uri: string, origin?: O): Promise<void> {
    const key = keyOf(upstream, uri);
    return this.#serial(key, () => this.#release(subscriber, key, origin));
  }

  /** Releases everything `subscriber` holds (a session closing). */
  async releaseAll(subscriber: string): Promise<void> {
    const keys = this.#bySubscriber.get(subscriber);
    if (!keys) return;
    await Promise.allSettled([...keys].map((key) => this.#serial(key, () => this.#release(subscriber, key))));
    if (this.#bySubscriber.get(subscriber)?.size === 0) this.#bySubscriber.delete(subscriber);
  }

  /** Subscribers of (upstream, uri), for routing `notifications/resources/updated`. */
  subscribers(upstream: string, uri: string): ReadonlySet<string> {
    return this.#entries.get(keyOf(upstream, uri))?.subscribers ?? EMPTY;
  }

  /**
   * The (upstream, URI) pairs `subscriber` holds or is subscribing to, whichever upstreams are configured
   * now: an unsubscribe finds its subscription here when no upstream owns the URI any more.
   */
  held(subscriber: string): { upstream: string; uri: string }[] {
    const keys = this.#bySubscriber.get(subscriber) ?? EMPTY;
    return [...keys].map((key) => {
      const at = key.indexOf('\u0000');
      return { upstream: key.slice(0, at), uri: key.slice(at + 1) };
    });
  }

  /** Every URI with at least one subscriber on `upstream` (re-established after a reconnect). */
  urisOf(upstream: string): string[] {
    const uris: string[] = [];
    for (const entry of this.#entries.values()) if (entry.upstream === upstream) uris.push(entry.uri);
    return uris;
  }

  get size(): number {
    return this.#entries.size;
  }

  async #release(subscriber: string, key: string, origin?: O): Promise<void> {
    const entry = this.#entries.get(key);
    this.#bySubscriber.get(subscriber)?.delete(key);
    if (!entry?.subscribers.delete(subscriber)) return;
    if (entry.subscribers.size > 0) return;
    this.#entries.delete(key);
    if (entry.active) await this.#backend.unsubscribe(entry.upstream, entry.uri, origin);
  }

  #index(subscriber: string): Set<string> {
    let keys = this.#bySubscriber.get(subscriber);
    if (!keys) {
      keys = new Set();
      this.#bySubscriber.set(subscriber, keys);
    }
    return keys;
  }

  #serial<T>(key: string, op: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const run = previous.then(op, op);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.#queues.set(key, settled);
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return run;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
