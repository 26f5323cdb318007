import type { Store, StoreCounters, StorePubSub } from './store.js';

/** A view of a store whose keys and channels all start with `prefix`; disposing it leaves the store open. */
export class ScopedStore implements Store {
  readonly #inner: Store;
  readonly #prefix: string;
  readonly counters?: StoreCounters;
  readonly pubsub?: StorePubSub;

  constructor(inner: Store, prefix: string) {
    this.#inner = inner;
    this.#prefix = prefix;
    const counters = inner.counters;
    if (counters)
      this.counters = { increment: (key, by, ttlMs) => counters.increment(prefix + key, by, ttlMs) };
    const pubsub = inner.pubsub;
    if (pubsub)
      this.pubsub = {
        publish: (channel, message) => pubsub.publish(prefix + channel, message),
        subscribe: (channel, listener) => pubsub.subscribe(prefix + channel, listener),
      };
  }

  get driver(): string {
    return this.#inner.driver;
  }
  get shared(): boolean {
    return this.#inner.shared;
  }
  get available(): boolean {
    return this.#inner.available;
  }
  get onUnavailable() {
    return this.#inner.onUnavailable;
  }
  get native() {
    const native = this.#inner.native;
    return native && { ...native, prefix: native.prefix + this.#prefix };
  }

  onAvailability(listener: (available: boolean) => void): () => void {
    return this.#inner.onAvailability(listener);
  }
  get(key: string) {
    return this.#inner.get(this.#prefix + key);
  }
  set(key: string, value: string, options?: { ttlMs?: number }) {
    return this.#inner.set(this.#prefix + key, value, options);
  }
  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }) {
    return this.#inner.setIfAbsent(this.#prefix + key, value, options);
  }
  delete(...keys: string[]) {
    return this.#inner.delete(...keys.map((key) => this.#prefix + key));
  }
  touch(key: string, ttlMs: number) {
    return this.#inner.touch(this.#prefix + key, ttlMs);
  }
  scoped(prefix: string): Store {
    return new ScopedStore(this.#inner, this.#prefix + prefix);
  }
  async dispose(): Promise<void> {}
}
