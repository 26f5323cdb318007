import type { Logger, Store } from '@switchyard/core';
import { ChangeFeed, type ChangeListener } from './change-feed.js';
import { ConnectedIndex } from './connected-index.js';
import { KeyCheck } from './key-check.js';
import { KeyRing } from './key-ring.js';
import { CREDENTIALS_SCOPE, grantKey, grantLockKey } from './store-keys.js';
import { lock, type Release, tryLock } from './store-lock.js';
import type { StoredGrant } from './types.js';

/** A grant that can be refreshed lives this long after it was last stored (each refresh renews it). */
const REFRESHABLE_TTL_MS = 90 * 24 * 3600 * 1000;
/** A grant's write lock disappears after this long even if its holder dies: longer than a refresh takes. */
const GRANT_LOCK_TTL_MS = 10_000;

export interface TokenVaultOptions {
  /** The gateway's store (memory without `store`, else the shared one): the vault works in its `credentials:` scope. */
  store: Store;
  /** `credentials.key`: seals everything written. */
  key: string;
  /** Keys used before `key`: what they sealed still opens, and is sealed again under `key` when read. */
  previousKeys?: readonly string[];
  logger: Logger;
  now?: () => number;
}

/**
 * Each person's grant per upstream (DESIGN §14), kept in the store: in memory without `store` (lost on
 * restart), else in the shared store where every replica sees it. Each value is sealed (AES-256-GCM, bound
 * to its store key) under a key derived from `credentials.key`; see ./store-keys.ts for the key layout.
 *
 * Rotation: a value sealed under one of `previousKeys` opens and is sealed again under `key` when read
 * (under the grant's lock, so it never overwrites a newer grant). A value no key opens reads as absent; it
 * is deleted (and logged once, without its content) when the stored key check opens, i.e. when this
 * replica's keys are right and the value is damaged or sealed under a key everyone dropped. A replica whose
 * key is wrong or out of date leaves it alone and says so.
 *
 * Writers hold the grant's lock (`lockGrant`): a refresh, a connect and a disconnect of the same grant
 * never interleave, on one replica or several. `put` and `delete` do not take it themselves.
 *
 * Grants that can be refreshed live until deleted (90 days after their last write, renewed by each
 * refresh); one without a refresh token expires with its access token.
 */
export class TokenVault {
  readonly #store: Store;
  readonly #ring: KeyRing;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #feed: ChangeFeed;
  readonly #index: ConnectedIndex;
  readonly #keyCheck: KeyCheck;
  #keyCheckWritten = false;
  #wrongKeyLogged = false;

  constructor(options: TokenVaultOptions) {
    this.#store = options.store.scoped(CREDENTIALS_SCOPE);
    this.#ring = new KeyRing(options.key, options.previousKeys);
    this.#log = options.logger;
    this.#now = options.now ?? Date.now;
    this.#feed = new ChangeFeed(this.#store, options.logger);
    this.#keyCheck = new KeyCheck(this.#store, this.#ring);
    this.#index = new ConnectedIndex(this.#store, this.#ring, options.logger, () => this.#checkKey());
  }

  /**
   * Listens to the other replicas' changes, and checks this replica's key against the store's key check
   * (sealing it under the current key after a rotation). A store that does not answer yet is no error.
   */
  async start(): Promise<void> {
    await this.#feed.start();
    try {
      await this.#checkKey();
    } catch {
      this.#log.debug('the credentials key check waits for the store');
    }
  }

  /** `owner`'s grant at `upstream`, or undefined. Rejects with StoreUnavailableError when the store does not answer. */
  async get(owner: string, upstream: string): Promise<StoredGrant | undefined> {
    const key = grantKey(owner, upstream);
    const raw = await this.#store.get(key);
    if (raw === undefined) return undefined;
    const opened = this.#ring.open(raw, key);
    const grant = opened && parseGrant(opened.plain);
    if (!opened || !grant) {
      await this.#unopenable(owner, upstream, key, raw);
      return undefined;
    }
    if (opened.stale) await this.#reseal(owner, upstream, key, raw, grant);
    return grant;
  }

  /** Stores `grant` as `owner`'s at `upstream` (replacing any), and tells every replica it is connected. */
  async put(owner: string, upstream: string, grant: StoredGrant): Promise<void> {
    if (!this.#keyCheckWritten) await this.#checkKey();
    await this.#write(grantKey(owner, upstream), grant);
    await this.#index.add(owner, upstream);
    await this.#feed.publish(owner, upstream, true);
  }

  /** Deletes `owner`'s grant at `upstream`; resolves to whether there was one (and then tells every replica). */
  async delete(owner: string, upstream: string): Promise<boolean> {
    const key = grantKey(owner, upstream);
    const existed = (await this.#store.get(key)) !== undefined;
    await this.#store.delete(key);
    await this.#index.remove(owner, upstream);
    if (existed) await this.#feed.publish(owner, upstream, false);
    return existed;
  }

  /** The upstreams `owner` is connected to now, sorted (names whose grant expired are dropped from the index). */
  async list(owner: string): Promise<string[]> {
    const names = [...(await this.#index.read(owner))];
    const present = await Promise.all(names.map(async (name) => (await this.get(owner, name)) !== undefined));
    const gone = names.filter((_, i) => !present[i]);
    if (gone.length > 0) await this.#index.remove(owner, ...gone);
    return names.filter((_, i) => present[i]).sort();
  }

  /** Hears every connect and disconnect, this replica's and (with a shared store) the others'; returns how to stop. */
  onChange(listener: ChangeListener): () => void {
    return this.#feed.on(listener);
  }

  /**
   * Takes the lock every writer of `owner`'s grant at `upstream` holds (it expires after 10 s),
   * waiting up to `waitMs`; undefined when it could not be had in time.
   */
  lockGrant(owner: string, upstream: string, waitMs: number): Promise<Release | undefined> {
    return lock(this.#store, grantLockKey(owner, upstream), { ttlMs: GRANT_LOCK_TTL_MS, waitMs });
  }

  /** Takes that lock if nobody holds it; undefined otherwise. */
  tryLockGrant(owner: string, upstream: string): Promise<Release | undefined> {
    return tryLock(this.#store, grantLockKey(owner, upstream), GRANT_LOCK_TTL_MS);
  }

  /** Stops listening to the other replicas (the store stays open: its opener disposes it). */
  async close(): Promise<void> {
    await this.#feed.close();
  }

  async #write(key: string, grant: StoredGrant): Promise<void> {
    const ttlMs =
      grant.refreshToken === undefined && grant.expiresAt !== undefined
        ? Math.max(1000, grant.expiresAt - this.#now())
        : REFRESHABLE_TTL_MS;
    await this.#store.set(key, this.#ring.seal(JSON.stringify(grant), key), { ttlMs });
  }

  /** Seals `grant` again under the current key, unless a writer holds its lock or it changed meanwhile. */
  async #reseal(owner: string, upstream: string, key: string, raw: string, grant: StoredGrant) {
    const release = await this.tryLockGrant(owner, upstream);
    if (!release) return; // a writer is at it: what it writes is sealed under the current key anyway
    try {
      if ((await this.#store.get(key)) === raw) await this.#write(key, grant);
    } finally {
      await release();
    }
  }

  async #unopenable(owner: string, upstream: string, key: string, raw: string): Promise<void> {
    if (!(await this.#checkKey())) {
      if (!this.#wrongKeyLogged) {
        this.#wrongKeyLogged = true;
        this.#log.error(
          'credentials.key does not open the credentials the store holds: this replica treats them as absent and leaves them alone. Give every replica the same credentials.key (when rotating, the old key in credentials.previousKeys)',
          { identity: owner, upstream },
        );
      }
      return;
    }
    // Unless a writer replaced it meanwhile (a new connection is not to be dropped with the old value).
    if ((await this.#store.get(key)) !== raw) return;
    await this.#store.delete(key);
    await this.#index.remove(owner, upstream);
    this.#log.warn(
      'dropped a stored credential that could not be opened (altered, or sealed under a key no longer configured)',
      {
        identity: owner,
        upstream,
      },
    );
    await this.#feed.publish(owner, upstream, false);
  }

  async #checkKey(): Promise<boolean> {
    const matches = await this.#keyCheck.matches();
    this.#keyCheckWritten = true;
    return matches;
  }
}

/** A grant as stored, when `plain` is one (anything else reads as absent). */
function parseGrant(plain: string): StoredGrant | undefined {
  let value: unknown;
  try {
    value = JSON.parse(plain);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const grant = value as Record<string, unknown>;
  const optional = (field: string, type: 'string' | 'number' | 'boolean') =>
    grant[field] === undefined || typeof grant[field] === type;
  const valid =
    typeof grant.accessToken === 'string' &&
    typeof grant.issuer === 'string' &&
    typeof grant.clientId === 'string' &&
    typeof grant.obtainedAt === 'number' &&
    optional('refreshToken', 'string') &&
    optional('expiresAt', 'number') &&
    optional('scope', 'string') &&
    optional('afterRefusal', 'boolean');
  return valid ? (grant as unknown as StoredGrant) : undefined;
}
