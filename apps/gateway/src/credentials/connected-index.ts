import type { Logger, Store } from '@switchyard/core';
import type { KeyRing } from './key-ring.js';
import { indexKey, indexLockKey } from './store-keys.js';
import { lock } from './store-lock.js';

const LOCK_TTL_MS = 5000;
const LOCK_WAIT_MS = 5000;

/** How a stored list opened: under the current key, a previous one, none, or there is none. */
type Sealing = 'current' | 'previous' | 'unopenable' | 'absent';

/**
 * The upstreams one person connected, as one sealed JSON list per identity (the store has no scan). It may
 * name upstreams whose grant has since expired: readers check each name against the grant itself. Changes
 * are read-modify-write under a short per-identity lock, so two replicas connecting the same person to two
 * upstreams at once both land. A list sealed under a previous key is sealed again under the current one
 * when read; one no key opens is replaced only when `keysMatch` says this replica's keys are right.
 */
export class ConnectedIndex {
  readonly #store: Store;
  readonly #ring: KeyRing;
  readonly #log: Logger;
  readonly #keysMatch: () => Promise<boolean>;

  constructor(store: Store, ring: KeyRing, logger: Logger, keysMatch: () => Promise<boolean>) {
    this.#store = store;
    this.#ring = ring;
    this.#log = logger;
    this.#keysMatch = keysMatch;
  }

  /** The names listed for `owner` (empty when none, or when the list cannot be opened). */
  async read(owner: string): Promise<Set<string>> {
    const { names, sealing } = await this.#load(owner);
    if (sealing === 'previous') await this.#update(owner, () => {});
    return names;
  }

  /** Adds `upstream` to `owner`'s list, unless it is there already. */
  async add(owner: string, upstream: string): Promise<void> {
    const { names, sealing } = await this.#load(owner);
    if (names.has(upstream) && sealing === 'current') return;
    await this.#update(owner, (current) => current.add(upstream));
  }

  /** Removes `upstreams` from `owner`'s list. */
  async remove(owner: string, ...upstreams: string[]): Promise<void> {
    await this.#update(owner, (current) => {
      for (const upstream of upstreams) current.delete(upstream);
    });
  }

  async #load(owner: string): Promise<{ names: Set<string>; sealing: Sealing }> {
    const key = indexKey(owner);
    const raw = await this.#store.get(key);
    if (raw === undefined) return { names: new Set(), sealing: 'absent' };
    const opened = this.#ring.open(raw, key);
    if (!opened) return { names: new Set(), sealing: 'unopenable' };
    let names: unknown;
    try {
      names = JSON.parse(opened.plain);
    } catch {
      return { names: new Set(), sealing: 'unopenable' };
    }
    const listed = Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
    return { names: new Set(listed), sealing: opened.stale ? 'previous' : 'current' };
  }

  async #update(owner: string, change: (names: Set<string>) => unknown): Promise<void> {
    const key = indexKey(owner);
    const release = await lock(this.#store, indexLockKey(owner), {
      ttlMs: LOCK_TTL_MS,
      waitMs: LOCK_WAIT_MS,
    });
    // Not had in time (a holder that died keeps it LOCK_TTL_MS at most): write anyway rather than lose it.
    if (!release) this.#log.debug('wrote a credentials index without its lock', { identity: owner });
    try {
      const { names, sealing } = await this.#load(owner);
      const before = listed(names);
      change(names);
      if (listed(names) === before && (sealing === 'current' || sealing === 'absent')) return;
      // A list no key opens is replaced (or removed) only by a replica whose keys are right.
      if (sealing === 'unopenable' && !(await this.#keysMatch())) return;
      if (names.size === 0) await this.#store.delete(key);
      else await this.#store.set(key, this.#ring.seal(JSON.stringify([...names].sort()), key));
    } finally {
      await release?.();
    }
  }
}

function listed(names: Set<string>): string {
  return JSON.stringify([...names].sort());
}
