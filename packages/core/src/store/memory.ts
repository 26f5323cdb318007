import { EventEmitter } from 'node:events';
import { ScopedStore } from './scoped.js';
import type { Store, StoreCounters, StorePubSub } from './store.js';

interface Entry {
  value: string;
  expiresAt: number;
}

const SWEEP_MS = 30_000;

/**
 * The default store: this process's memory, always available, shared with no one. Expired keys are
 * dropped when read and by a sweep every 30 s.
 */
export class MemoryStore implements Store {
  readonly driver = 'memory';
  readonly shared = false;
  readonly available = true;
  readonly onUnavailable = 'local' as const;
  readonly #entries = new Map<string, Entry>();
  readonly #bus = new EventEmitter().setMaxListeners(0);
  readonly #sweeper: NodeJS.Timeout;

  constructor() {
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
    this.#sweeper.unref();
  }

  onAvailability(): () => void {
    return () => {};
  }

  async get(key: string): Promise<string | undefined> {
    return this.#live(key)?.value;
  }

  async set(key: string, value: string, options?: { ttlMs?: number }): Promise<void> {
    this.#entries.set(key, { value, expiresAt: expiry(options?.ttlMs) });
  }

  async setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean> {
    if (this.#live(key)) return false;
    this.#entries.set(key, { value, expiresAt: expiry(options?.ttlMs) });
    return true;
  }

  async delete(...keys: string[]): Promise<void> {
    for (const key of keys) this.#entries.delete(key);
  }

  async touch(key: string, ttlMs: number): Promise<boolean> {
    const entry = this.#live(key);
    if (entry) entry.expiresAt = expiry(ttlMs);
    return entry !== undefined;
  }

  readonly counters: StoreCounters = {
    increment: async (key, by, ttlMs) => {
      const entry = this.#live(key);
      const value = Number(entry?.value ?? 0) + by;
      const expiresAt = ttlMs === undefined ? (entry?.expiresAt ?? Number.POSITIVE_INFINITY) : expiry(ttlMs);
      this.#entries.set(key, { value: String(value), expiresAt });
      return value;
    },
  };

  readonly pubsub: StorePubSub = {
    publish: async (channel, message) => {
      this.#bus.emit(channel, message);
    },
    subscribe: async (channel, listener) => {
      this.#bus.on(channel, listener);
      return async () => {
        this.#bus.off(channel, listener);
      };
    },
  };

  scoped(prefix: string): Store {
    return new ScopedStore(this, prefix);
  }

  async dispose(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
    this.#bus.removeAllListeners();
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}

function expiry(ttlMs: number | undefined): number {
  return ttlMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + ttlMs;
}
