/** What replicas do while the shared store does not answer (DESIGN §12). */
export type UnavailablePolicy = 'local' | 'refuse';

/** Atomic counters: every replica sees one value. */
export interface StoreCounters {
  /** Adds `by` to `key` (created at 0) and returns the new value; `ttlMs` (re)sets its lifetime. */
  increment(key: string, by: number, ttlMs?: number): Promise<number>;
}

/** Publish/subscribe between replicas. A message published reaches every replica's listeners, the publisher's too. */
export interface StorePubSub {
  publish(channel: string, message: string): Promise<void>;
  /** Listens on `channel` (re-established by itself after the store comes back); resolves to how to stop. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
}

/**
 * The one seam through which replicas share state (DESIGN §12): a key-value store with optional
 * capabilities, one factory per driver (the unstorage pattern). The in-memory driver is the default;
 * the Redis driver is loaded only when `store.redis` is configured. Plugins get a view scoped to their
 * own keys from their setup context.
 *
 * Every operation either settles within the driver's command timeout or rejects with
 * `StoreUnavailableError`: a store answering slowly or not at all never holds a request.
 */
export interface Store {
  /** `memory` (this process only) or the shared driver's name. */
  readonly driver: string;
  /** True when other replicas see what this one writes (a shared driver). */
  readonly shared: boolean;
  /** Whether the store answers right now (the memory driver always does). */
  readonly available: boolean;
  /** What to do while it does not: keep serving with per-replica state, or refuse what needs it. */
  readonly onUnavailable: UnavailablePolicy;
  /** Calls `listener` on each change of `available`; returns how to stop. */
  onAvailability(listener: (available: boolean) => void): () => void;
  get(key: string): Promise<string | undefined>;
  /** Sets `key`; with `ttlMs` it disappears after that long. */
  set(key: string, value: string, options?: { ttlMs?: number }): Promise<void>;
  /** Sets `key` only if it does not exist (atomically across replicas); resolves to whether it did. */
  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  delete(...keys: string[]): Promise<void>;
  /** Resets the lifetime of `key`, if it exists. Resolves to whether it did. */
  touch(key: string, ttlMs: number): Promise<boolean>;
  readonly counters?: StoreCounters;
  readonly pubsub?: StorePubSub;
  /**
   * The driver's own client, for a library that speaks the engine itself (rate-limiter-flexible on
   * Redis). Keys written through it carry the store's key prefix only if the library adds `prefix`.
   */
  readonly native?: { readonly kind: string; readonly client: unknown; readonly prefix: string };
  /** A view whose keys and channels all start with `prefix` (after this store's own). */
  scoped(prefix: string): Store;
  /** Closes the driver's connections. Only the store's opener disposes it; scoped views do nothing. */
  dispose(): Promise<void>;
}

/** What a store operation rejects with while the store does not answer. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
