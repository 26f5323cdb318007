import type { Logger, Store } from '@switchyard/core';
import { ByteBudget } from './byte-budget.js';
import { type Audience, privateKey, sharedKey } from './freshness.js';
import { digest, Generations, type Tag } from './generations.js';
import { type Invalidation, InvalidationBus } from './invalidation-bus.js';

export type { Tag } from './generations.js';

/** An L2 entry as the first level needs it. */
export interface SecondLevelHit {
  readonly result: Record<string, unknown>;
  readonly audience: Audience;
  readonly statesTtl: boolean;
  /** What is left of its lifetime (never more than the cache's `ttlMs`). */
  readonly remainingMs: number;
}

/** A lookup: a hit, or the tag to write the upstream's answer under (none when the store did not answer). */
export type SecondLevelLookup =
  | { readonly hit: SecondLevelHit; readonly tag?: undefined }
  | { readonly hit?: undefined; readonly tag: Tag | undefined };

/** After the store comes back: probe the invalidation channel this often, this long each. */
const REJOIN_PROBES = 10;
const REJOIN_PROBE_MS = 1_000;

/** What reads do with the second level right now. */
export type SecondLevelMode =
  /** Look in it and write to it. */
  | 'use'
  /** The store is unavailable, `onUnavailable: 'local'`: the first level alone. */
  | 'local'
  /** The store is unavailable, `onUnavailable: 'refuse'`: read from the upstream, no hits at all. */
  | 'refuse';

/** The stored form: short names, one JSON string. */
interface Stored {
  v: 1;
  /** epoch and URI token of the tag it was read under */
  e: string;
  g: string;
  a: Audience;
  s: boolean;
  /** expiry, epoch milliseconds (the writer's clock) */
  x: number;
  r: Record<string, unknown>;
}

export interface SecondLevelOptions {
  store: Store;
  /** Bound of the bytes held in the store (see ByteBudget). */
  maxBytes: number;
  /** The cache's `ttlMs`: no entry lives longer. */
  ttlMs: number;
  /** Hears the invalidations other replicas publish (evict the first level). */
  onRemote: (invalidation: Invalidation) => void;
  logger: Logger;
  now?: () => number;
}

/** Figures for the status page. */
export interface SecondLevelStats {
  l2Hits: number;
  l2Misses: number;
  l2Writes: number;
  /** Writes not admitted by the byte bound. */
  l2Refused: number;
  /** Store operations that failed (each one a miss or a write skipped). */
  l2Errors: number;
  /** Bytes counted in the store's current and previous window, as of this replica's last write. */
  l2Bytes: number;
  l2MaxBytes: number;
}

/**
 * The second level: `resources/read` results in the shared store (DESIGN §12), behind each replica's
 * in-process LRU. An entry is one key, `e:<digest of the L1 key>` (a private entry's key includes the
 * identity, which the gateway resolved, so no client can name another identity's entry). It carries the
 * result, its audience, its expiry, and the tag (store epoch, URI token) it was read under; it is
 * served only while that tag is current, so an invalidation replaces one token instead of finding
 * every identity's key, and a read that an invalidation overtook stores an entry nobody is served.
 * Invalidations are published so every replica evicts its first level too. A failed store operation
 * is a miss (or a skipped write), never a failed read.
 */
export class SecondLevel {
  readonly #store: Store;
  readonly #generations: Generations;
  readonly #budget: ByteBudget;
  readonly #bus: InvalidationBus;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #pending = new Set<Promise<unknown>>();
  /** An invalidation did not reach the store: flush everything as soon as it answers. */
  #dirty = false;
  #flushing: Promise<void> | undefined;
  #closed = false;
  readonly #stats = { l2Hits: 0, l2Misses: 0, l2Writes: 0, l2Refused: 0, l2Errors: 0 };

  private constructor(options: SecondLevelOptions, bus: InvalidationBus) {
    const store = options.store;
    if (!store.counters) throw new Error('the second level needs a store with counters');
    this.#store = store;
    this.#ttlMs = options.ttlMs;
    this.#maxBytes = options.maxBytes;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
    this.#generations = new Generations(store, 2 * options.ttlMs);
    this.#budget = new ByteBudget(store, store.counters, options.maxBytes, options.ttlMs, this.#now);
    this.#bus = bus;
  }

  /**
   * A second level in `store`, or undefined when the store is not shared (or lacks counters or
   * pub/sub): then the cache is exactly the first level.
   */
  static async open(options: SecondLevelOptions): Promise<SecondLevel | undefined> {
    const { store } = options;
    if (!store?.shared) return undefined;
    if (!store.counters || !store.pubsub) {
      options.logger.warn('the shared store lacks counters or pub/sub: the cache stays per replica', {
        driver: store.driver,
      });
      return undefined;
    }
    const bus = await InvalidationBus.open(store.pubsub, options.onRemote);
    return new SecondLevel(options, bus);
  }

  /** What reads do with the second level right now. */
  get mode(): SecondLevelMode {
    if (this.#store.available && !this.#closed) return 'use';
    return this.#store.onUnavailable === 'refuse' ? 'refuse' : 'local';
  }

  stats(): SecondLevelStats {
    return { ...this.#stats, l2Bytes: this.#budget.lastSeen, l2MaxBytes: this.#maxBytes };
  }

  /**
   * The entry `identity` may be served for `uri` (the shared one, else its own private one), or the tag
   * to store the upstream's answer under. Call it after the first level's read ticket has started, and
   * read upstream only after it settled: the tag must predate the upstream read.
   */
  async lookup(uri: string, identity: string): Promise<SecondLevelLookup> {
    if (this.mode !== 'use') return { tag: undefined };
    const at = this.#now();
    try {
      const [found, shared, own] = await Promise.all([
        this.#generations.read(uri),
        this.#store.get(entryKey(sharedKey(uri))),
        this.#store.get(entryKey(privateKey(identity, uri))),
      ]);
      const hit = this.#valid(shared, found, 'shared') ?? this.#valid(own, found, 'private');
      if (hit) {
        this.#stats.l2Hits += 1;
        return { hit };
      }
      this.#stats.l2Misses += 1;
      return { tag: await this.#generations.tag(uri, found, at) };
    } catch (error) {
      this.#failed('look up', error);
      return { tag: undefined };
    }
  }

  /**
   * Stores an upstream's answer read under `tag`, if the byte bound admits it; resolves to whether it
   * did. Never rejects.
   */
  async write(
    tag: Tag,
    uri: string,
    identity: string,
    entry: { result: Record<string, unknown>; audience: Audience; statesTtl: boolean; ttlMs: number },
  ): Promise<boolean> {
    if (this.mode !== 'use') return false;
    const ttlMs = Math.min(entry.ttlMs, this.#ttlMs);
    const stored: Stored = {
      v: 1,
      e: tag.epoch,
      g: tag.uri,
      a: entry.audience,
      s: entry.statesTtl,
      x: this.#now() + ttlMs,
      r: entry.result,
    };
    const key = entryKey(entry.audience === 'shared' ? sharedKey(uri) : privateKey(identity, uri));
    try {
      const value = JSON.stringify(stored);
      if (!(await this.#budget.admit(Buffer.byteLength(value)))) {
        this.#stats.l2Refused += 1;
        return false;
      }
      await Promise.all([this.#store.set(key, value, { ttlMs }), this.#generations.keep(uri)]);
      this.#stats.l2Writes += 1;
      return true;
    } catch (error) {
      this.#failed('write', error);
      return false;
    }
  }

  /**
   * Invalidates `uri` for every replica: its token is replaced (no replica is served an entry of it
   * again) and the others are told to evict their first level. Both commands leave at once, in this
   * order, on the store's one command connection, which Redis runs in order: a replica that hears the
   * message and looks in the store finds the new token. The notification hook returns this promise and
   * the gateway tells its clients only once it settles (at most 1 s), so every replica has heard of the
   * update before any client can read again. Resolves once both are done or failed; a failure makes the
   * next chance flush everything (it never rejects).
   */
  invalidate(uri: string): Promise<void> {
    return this.#track(() => both(this.#generations.renew(uri), this.#bus.publish({ uri })));
  }

  /**
   * This replica stopped watching `uri`: entries of it that no replica watches could go stale unseen,
   * so the store's entries of it are dropped (other replicas' first levels, watched, stay).
   */
  unwatched(uri: string): Promise<void> {
    return this.#track(() => this.#generations.renew(uri));
  }

  /** Invalidates everything, for every replica (a reload; a rejoin after missed invalidations). */
  flush(): Promise<void> {
    return this.#track(() => both(this.#generations.renewAll(), this.#bus.publish({ all: true })));
  }

  /**
   * Calls `evict` on each change of the store's availability (the first level may have missed
   * invalidations while away), then, once back, flushes if an invalidation of this replica could not
   * be recorded meanwhile. Returns how to stop.
   */
  onAvailability(evict: () => void): () => void {
    return this.#store.onAvailability((available) => {
      evict();
      if (!available) {
        this.#bus.deaf();
        return;
      }
      if (this.#dirty) this.#retryFlush();
      // The driver restores the channel's subscription on its own connection, maybe a moment after
      // commands work again: what L1 took in that moment may have missed messages, so evict once more
      // when this replica hears itself on the channel.
      void this.#untilListening().then(evict);
    });
  }

  /** Probes the channel until this replica hears itself (or the store goes away again, or closes). */
  async #untilListening(): Promise<void> {
    for (let attempt = 0; attempt < REJOIN_PROBES && this.mode === 'use'; attempt++) {
      if (await this.#bus.listening(REJOIN_PROBE_MS)) return;
    }
  }

  /** Resolves once this replica hears other replicas' invalidations, false after `timeoutMs`. */
  listening(timeoutMs: number): Promise<boolean> {
    if (this.mode !== 'use') return Promise.resolve(false);
    return this.#bus.listening(timeoutMs);
  }

  /** Waits for the invalidations under way (each bounded by the store's command timeout). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Flushes (a reload invalidates everything), then stops listening. */
  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#store.available) await this.flush();
    this.#closed = true;
    await this.settled();
    await this.#bus.close();
  }

  #track(operation: () => Promise<void>): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.mode !== 'use') {
      this.#markDirty();
      return Promise.resolve();
    }
    const done: Promise<void> = operation()
      .catch((error: unknown) => {
        this.#failed('invalidate', error);
        this.#markDirty();
      })
      .finally(() => this.#pending.delete(done));
    this.#pending.add(done);
    return done;
  }

  #markDirty(): void {
    if (this.#dirty) return;
    this.#dirty = true;
    this.#logger.warn('an invalidation did not reach the store: the shared cache is flushed once it answers');
    if (this.#store.available) this.#retryFlush();
  }

  #retryFlush(): void {
    if (this.#flushing || this.#closed) return;
    this.#dirty = false;
    const attempt = both(this.#generations.renewAll(), this.#bus.publish({ all: true }));
    const flushing: Promise<void> = attempt
      .catch((error: unknown) => {
        this.#failed('flush', error);
        this.#dirty = true;
      })
      .finally(() => {
        this.#flushing = undefined;
        this.#pending.delete(flushing);
      });
    this.#flushing = flushing;
    this.#pending.add(flushing);
  }

  #valid(
    raw: string | undefined,
    found: { epoch?: string; uri?: string },
    audience: Audience,
  ): SecondLevelHit | undefined {
    if (raw === undefined || found.epoch === undefined || found.uri === undefined) return undefined;
    let stored: Stored;
    try {
      stored = JSON.parse(raw) as Stored;
    } catch {
      return undefined;
    }
    if (stored?.v !== 1 || stored.e !== found.epoch || stored.g !== found.uri || stored.a !== audience)
      return undefined;
    const remainingMs = Math.min(Math.floor(stored.x - this.#now()), this.#ttlMs);
    if (!(remainingMs > 0) || typeof stored.r !== 'object' || stored.r === null) return undefined;
    return { result: stored.r, audience, statesTtl: stored.s === true, remainingMs };
  }

  #failed(action: string, error: unknown): void {
    this.#stats.l2Errors += 1;
    this.#logger.debug(`could not ${action} in the shared cache`, {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Settles once both have; rejects if either did (both are always awaited: no unhandled rejection). */
async function both(first: Promise<void>, second: Promise<void>): Promise<void> {
  await Promise.all([first, second]);
}

/** The store key of an L1 key's entry (hashed: it holds a URI, and an identity for private entries). */
function entryKey(firstLevelKey: string): string {
  return `e:${digest(firstLevelKey)}`;
}
