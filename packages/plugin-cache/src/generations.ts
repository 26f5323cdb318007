import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '@switchyard/core';

/**
 * The generation an L2 entry was read under: the store-wide epoch and the URI's own token, both as
 * they were before the upstream read started. An entry is served only while both are unchanged.
 */
export interface Tag {
  readonly epoch: string;
  readonly uri: string;
  /** When the tokens were read (this replica's clock). */
  readonly at: number;
}

/** The key of the store-wide epoch (replaced by a reload or a rejoin: every entry becomes invalid). */
export const EPOCH_KEY = 'epoch';

/** The key of a URI's generation token (hashed: URIs can be long). */
export function generationKey(uri: string): string {
  return `g:${digest(uri)}`;
}

/** A short, collision-resistant, key-safe digest. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function token(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * Generation tokens in the shared store. A token is random and replaced, never counted up: a token
 * that expires or is evicted comes back as a new random one, so losing it only makes entries miss and
 * can never bring an old entry back to life. An invalidation replaces the token; a read creates it
 * when absent (only the first creator wins, then everyone reads the same one).
 */
export class Generations {
  readonly #store: Store;
  readonly #lifetimeMs: number;

  /** `lifetimeMs`: how long a URI's token lives without an invalidation (its entries live no longer). */
  constructor(store: Store, lifetimeMs: number) {
    this.#store = store;
    this.#lifetimeMs = lifetimeMs;
  }

  /** Reads the epoch and `uri`'s token as they are (undefined where absent). Rejects when the store does not answer. */
  async read(uri: string): Promise<{ epoch?: string; uri?: string }> {
    const [epoch, own] = await Promise.all([this.#store.get(EPOCH_KEY), this.#store.get(generationKey(uri))]);
    return { epoch, uri: own };
  }

  /** Completes what `read` found into a tag, creating the absent tokens. */
  async tag(uri: string, found: { epoch?: string; uri?: string }, at: number): Promise<Tag> {
    const [epoch, own] = await Promise.all([
      found.epoch ?? this.#create(EPOCH_KEY, undefined),
      found.uri ?? this.#create(generationKey(uri), this.#lifetimeMs),
    ]);
    return { epoch, uri: own, at };
  }

  /**
   * Keeps `uri`'s token at least as long as an entry written now (a token that expired would turn the
   * entry into a miss early).
   */
  async keep(uri: string): Promise<void> {
    await this.#store.touch(generationKey(uri), this.#lifetimeMs);
  }

  /** Invalidates every entry of `uri` (every identity's), on every replica's next lookup. */
  renew(uri: string): Promise<void> {
    return this.#store.set(generationKey(uri), token(), { ttlMs: this.#lifetimeMs });
  }

  /** Invalidates every entry. */
  renewAll(): Promise<void> {
    return this.#store.set(EPOCH_KEY, token());
  }

  async #create(key: string, ttlMs: number | undefined): Promise<string> {
    const mine = token();
    if (await this.#store.setIfAbsent(key, mine, ttlMs === undefined ? undefined : { ttlMs })) return mine;
    // Someone else created (or replaced) it meanwhile; if it is gone again, the entry simply misses.
    return (await this.#store.get(key)) ?? token();
  }
}
