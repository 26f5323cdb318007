import { LRUCache } from 'lru-cache';
import { privateKey, sharedKey } from './freshness.js';

/**
 * Why entries left the cache (the `reason` attribute of the evictions metric): `remote` is an
 * invalidation another replica published, `store` the shared store going away or coming back.
 */
export type EvictionReason = 'update' | 'capacity' | 'ttl' | 'upstream_down' | 'remote' | 'store';

/** One cached `resources/read` result. */
export interface CachedRead {
  readonly uri: string;
  readonly result: Record<string, unknown>;
  readonly bytes: number;
  /** The upstream stated a `ttlMs`: hits report the remaining freshness. */
  readonly statesTtl: boolean;
}

/** Holds an upstream subscription on an exposed URI; undefined when the URI cannot be watched. */
export type Watcher = (uri: string, onInvalidate: () => void) => Promise<() => Promise<void>> | undefined;

export interface ResourceCacheOptions {
  maxBytes: number;
  maxEntries: number;
  /** Keep a URI's watch this long after its last entry left (0 or absent: release at once). */
  lingerMs?: number;
  watcher: Watcher;
  onEvict: (reason: EvictionReason) => void;
  /** A watch that could not be set up or released (the entry is then kept coherent by its TTL only). */
  onWatchError: (uri: string, action: 'watch' | 'release', error: unknown) => void;
  /**
   * The watch of `uri` called back for a disconnect (updates may have been missed), whether or not
   * anything of the URI was still cached here.
   */
  onUpstreamDown?: (uri: string) => void;
  /** The watch of `uri` is being released (not on close): this replica no longer hears its updates. */
  onUnwatched?: (uri: string) => void;
}

/**
 * One upstream read of `uri` that may end up cached. Hold it from before the read until after the
 * store: while any ticket or entry of a URI exists, the URI's watch is held.
 */
export interface ReadTicket {
  /** Settles once the URI's watch is in place (or known impossible); only then read upstream. */
  readonly watched: Promise<void>;
  /** Marks the start of the upstream read: any invalidation from now on makes its result stale. */
  start(): number;
  /** Stores the result unless the URI was invalidated since `start()`; says whether it did. */
  store(key: string, read: CachedRead, ttlMs: number): boolean;
  /** Whether a result read since `start()` is still current (nothing invalidated the URI, nothing closed). */
  current(): boolean;
  /** Ends the ticket (idempotent). */
  end(): void;
}

/** Per-URI bookkeeping: cached keys, reads in flight, the invalidation generation and the watch. */
interface UriState {
  readonly uri: string;
  /** Bumped by every invalidation; a read stores only if it is unchanged since the read started. */
  generation: number;
  readonly keys: Set<string>;
  reads: number;
  /** Pending or settled watch; undefined when not (yet) watched, so a later read may try again. */
  watch: Promise<void> | undefined;
  release: (() => Promise<void>) | undefined;
  dropped: boolean;
}

/**
 * The byte-bounded LRU of read results with the per-URI state that keeps it coherent: a generation
 * counter per URI (no stale write-back) and one upstream watch per URI while anything of it is cached
 * or being read. Entries leave by capacity, TTL (purged on time, so their watch is released), or
 * invalidation of their URI.
 */
export class ResourceCache {
  readonly #lru: LRUCache<string, CachedRead>;
  readonly #uris = new Map<string, UriState>();
  readonly #options: ResourceCacheOptions;
  readonly #releases = new Set<Promise<void>>();
  /** URIs with nothing cached whose watch is kept a while (bounded in count and time), for re-reads. */
  readonly #lingering: LRUCache<string, UriState> | undefined;
  /** The reason of the explicit deletion under way (dispose cannot tell update from disconnect). */
  #deleting: EvictionReason | undefined;
  #closed = false;

  constructor(options: ResourceCacheOptions) {
    this.#options = options;
    this.#lru = new LRUCache<string, CachedRead>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (read) => Math.max(1, read.bytes),
      ttlAutopurge: true,
      noDisposeOnSet: true,
      dispose: (read, key, reason) => this.#disposed(read, key, reason),
    });
    const lingerMs = options.lingerMs ?? 0;
    this.#lingering =
      lingerMs > 0
        ? new LRUCache<string, UriState>({
            max: options.maxEntries,
            ttl: lingerMs,
            ttlAutopurge: true,
            // Revived (read again) while lingering: keep it; otherwise its time is up.
            dispose: (state) => {
              if (state.reads === 0 && state.keys.size === 0) this.#drop(state);
            },
          })
        : undefined;
  }

  /** Payload bytes cached. */
  get bytes(): number {
    return this.#lru.calculatedSize;
  }

  get entries(): number {
    return this.#lru.size;
  }

  /** URIs with cached entries, reads in flight or a lingering watch (each holds at most one watch). */
  get uris(): number {
    return this.#uris.size;
  }

  /**
   * The entry `identity` may be served for `uri`: the shared one, else its own private one. The
   * remaining freshness is given when the upstream stated a TTL.
   */
  lookup(
    uri: string,
    identity: string,
  ): { read: CachedRead; remainingTtlMs: number | undefined } | undefined {
    let key = sharedKey(uri);
    let read = this.#lru.get(key);
    if (read === undefined) {
      key = privateKey(identity, uri);
      read = this.#lru.get(key);
      if (read === undefined) return undefined;
    }
    const remaining = read.statesTtl ? Math.max(0, Math.floor(this.#lru.getRemainingTTL(key))) : undefined;
    return { read, remainingTtlMs: remaining };
  }

  /** The current invalidation generation of `uri` (0 when nothing of it is tracked). */
  generation(uri: string): number {
    return this.#uris.get(uri)?.generation ?? 0;
  }

  /** Starts a read of `uri`: takes a reference on its state and makes sure its watch is being set up. */
  begin(uri: string): ReadTicket {
    const state = this.#state(uri);
    state.reads += 1;
    this.#lingering?.delete(uri);
    this.#ensureWatch(state);
    let generation: number | undefined;
    let ended = false;
    return {
      watched: state.watch ?? Promise.resolve(),
      start: () => {
        generation = state.generation;
        return generation;
      },
      current: () => !this.#closed && !ended && !state.dropped && generation === state.generation,
      store: (key, read, ttlMs) => {
        if (this.#closed || ended || state.dropped || generation !== state.generation) return false;
        if (read.bytes > this.#options.maxBytes) return false;
        state.keys.add(key);
        this.#lru.set(key, read, { ttl: ttlMs });
        if (!this.#lru.has(key)) state.keys.delete(key);
        return true;
      },
      end: () => {
        if (ended) return;
        ended = true;
        state.reads -= 1;
        this.#dropIfUnused(state);
      },
    };
  }

  /** Drops every entry of `uri` (all identities) and makes reads in flight not store; returns how many. */
  invalidate(uri: string, reason: EvictionReason): number {
    const state = this.#uris.get(uri);
    if (!state) return 0;
    state.generation += 1;
    const keys = [...state.keys];
    this.#deleting = reason;
    try {
      for (const key of keys) this.#lru.delete(key);
    } finally {
      this.#deleting = undefined;
    }
    return keys.length;
  }

  /**
   * Drops every entry of every URI and makes every read in flight not store (watches stay); returns how
   * many entries left.
   */
  invalidateAll(reason: EvictionReason): number {
    let dropped = 0;
    for (const uri of [...this.#uris.keys()]) dropped += this.invalidate(uri, reason);
    return dropped;
  }

  /** Drops everything and releases every watch, including those held for reads still in flight. */
  async close(): Promise<void> {
    this.#closed = true;
    const states = [...this.#uris.values()];
    this.#lru.clear();
    this.#lingering?.clear();
    for (const state of states) this.#drop(state);
    // A watch still being set up is released when it settles: wait for that too.
    await Promise.allSettled(states.map((state) => state.watch));
    await Promise.allSettled([...this.#releases]);
  }

  #state(uri: string): UriState {
    let state = this.#uris.get(uri);
    if (!state) {
      state = {
        uri,
        generation: 0,
        keys: new Set(),
        reads: 0,
        watch: undefined,
        release: undefined,
        dropped: false,
      };
      this.#uris.set(uri, state);
    }
    return state;
  }

  #ensureWatch(state: UriState): void {
    if (state.watch || this.#closed) return;
    let pending: Promise<() => Promise<void>> | undefined;
    try {
      pending = this.#options.watcher(state.uri, () => this.#onWatchInvalidate(state));
    } catch (error) {
      pending = Promise.reject(error);
    }
    if (!pending) return;
    const watch = pending.then(
      (release) => {
        if (state.dropped) this.#release(state.uri, release);
        else state.release = release;
      },
      (error: unknown) => {
        this.#options.onWatchError(state.uri, 'watch', error);
        // Cached with its TTL only; a later read of the URI tries to watch it again.
        if (state.watch === watch) state.watch = undefined;
      },
    );
    state.watch = watch;
  }

  /** The gateway's watch callback: an update (already handled by the notification hook) or a disconnect. */
  #onWatchInvalidate(state: UriState): void {
    if (state.dropped || this.#uris.get(state.uri) !== state) return;
    this.invalidate(state.uri, 'upstream_down');
    this.#options.onUpstreamDown?.(state.uri);
  }

  #disposed(read: CachedRead, key: string, reason: LRUCache.DisposeReason): void {
    if (reason === 'set') return; // replaced in place: the key stays cached
    const state = this.#uris.get(read.uri);
    if (!state?.keys.delete(key)) return;
    const why = reason === 'evict' ? 'capacity' : reason === 'expire' ? 'ttl' : this.#deleting;
    if (why !== undefined) this.#options.onEvict(why);
    this.#dropIfUnused(state);
  }

  #dropIfUnused(state: UriState): void {
    if (state.keys.size > 0 || state.reads > 0) return;
    // Keep the watch a while: a URI read again soon then costs neither a subscribe nor its wait.
    if (this.#lingering && state.watch && !this.#closed && !state.dropped)
      this.#lingering.set(state.uri, state);
    else this.#drop(state);
  }

  /** Forgets the URI and releases its watch, exactly once (now, or when a pending watch settles). */
  #drop(state: UriState): void {
    if (state.dropped) return;
    state.dropped = true;
    if (this.#uris.get(state.uri) === state) this.#uris.delete(state.uri);
    const release = state.release;
    state.release = undefined;
    if (!release) return;
    if (!this.#closed) this.#options.onUnwatched?.(state.uri);
    this.#release(state.uri, release);
  }

  #release(uri: string, release: () => Promise<void>): void {
    const done: Promise<void> = Promise.resolve()
      .then(release)
      .catch((error: unknown) => this.#options.onWatchError(uri, 'release', error))
      .finally(() => this.#releases.delete(done));
    this.#releases.add(done);
  }
}
