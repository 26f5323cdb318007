import type { Logger, Store } from '@switchyard/core';
import { ReplicaSeal } from './forward-proof.js';

/** What the store keeps of one legacy session (DESIGN §12): who serves it, and what a takeover restores. */
export interface SessionRecord {
  /** The replica serving the session now (its advertised URL). */
  owner: string;
  /** Exposed URIs the client subscribed to. */
  subscriptions: string[];
  /** The level the client set with `logging/setLevel`. */
  logLevel?: string;
}

/** What the store says about a session. */
export type Lookup = { found: true; record: SessionRecord } | { found: false } | { unavailable: true };

/** What replicas tell each other, sealed (`seal`): only a replica can move or end a session. */
type DirectoryEvent = ({ t: 'moved'; sid: string; owner: string } | { t: 'closed'; sid: string }) & {
  seal?: unknown;
};

const CHANNEL = 'events';
const TAKEOVER_LOCK_MS = 5000;
const OWNER_CACHE_MAX = 10_000;

/**
 * The legacy sessions of all replicas, in the shared store: one record per session (its owner, its
 * subscriptions and log level) that lives as long as the session's idle limit and is renewed while the
 * session is used. Replicas remember owners they looked up, and hear on one channel when a session moves
 * (a takeover) or ends, so a request for a session they do not serve needs no store lookup in the steady
 * state. An owner is believed only when a replica wrote it (sealed with `cursorSecret`) or when it is the
 * session's opener, sealed in the session id itself: whoever can write to the store cannot make a replica
 * forward its clients' requests (and tokens) elsewhere.
 */
export class SessionDirectory {
  readonly #store: Store;
  readonly self: string;
  readonly #ttlMs: () => number;
  readonly #log: Logger;
  readonly #seal: ReplicaSeal;
  readonly #owners = new Map<string, string>();
  readonly #touched = new Map<string, number>();
  readonly #moved = new Set<(sid: string, owner: string | undefined) => void>();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(options: {
    store: Store;
    self: string;
    ttlMs: () => number;
    logger: Logger;
    secret: string | undefined;
  }) {
    this.#store = options.store;
    this.self = options.self;
    this.#ttlMs = options.ttlMs;
    this.#log = options.logger;
    this.#seal = new ReplicaSeal('switchyard/session-owner/v1', options.secret);
  }

  get available(): boolean {
    return this.#store.available;
  }

  get refuses(): boolean {
    return this.#store.onUnavailable === 'refuse';
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#store.pubsub?.subscribe(CHANNEL, (message) => this.#heard(message));
  }

  /** Calls `listener` when a session moved to another owner (`owner`) or ended (undefined). */
  onMoved(listener: (sid: string, owner: string | undefined) => void): void {
    this.#moved.add(listener);
  }

  /** The owner this replica last heard of, without asking the store. */
  cachedOwner(sid: string): string | undefined {
    return this.#owners.get(sid);
  }

  /**
   * The record of `sid`, opened by `opener` (as its session id says). A record whose owner no replica
   * wrote, and that is not the opener, is no record (as one that cannot be read).
   */
  async lookup(sid: string, opener: string): Promise<Lookup> {
    let raw: string | undefined;
    try {
      raw = await this.#store.get(key(sid));
    } catch {
      return { unavailable: true };
    }
    const record = raw === undefined ? undefined : parse(raw);
    if (!record) return { found: false };
    if (record.owner !== opener && !this.#seal.verify(ownerClaim(sid, record.owner), record.seal)) {
      this.#log.warn('a session record names an owner no replica wrote; ignored', { owner: record.owner });
      return { found: false };
    }
    this.#remember(sid, record.owner);
    const { seal: _, ...rest } = record;
    return { found: true, record: rest };
  }

  /** Writes the record this replica (the owner) holds; best effort while the store is away. */
  async save(sid: string, record: SessionRecord): Promise<void> {
    try {
      const sealed = { ...record, seal: this.#seal.sign(ownerClaim(sid, record.owner)) };
      await this.#store.set(key(sid), JSON.stringify(sealed), { ttlMs: this.#ttlMs() });
      this.#touched.set(sid, Date.now());
      this.#remember(sid, record.owner);
    } catch (error) {
      this.#log.debug('could not record the session in the store', { error: String(error) });
    }
  }

  /** Renews the record's lifetime, at most once a quarter of it (the owner calls it on each request). */
  touch(sid: string): void {
    const ttlMs = this.#ttlMs();
    const last = this.#touched.get(sid) ?? 0;
    if (Date.now() - last < ttlMs / 4) return;
    this.#touched.set(sid, Date.now());
    this.#store.touch(key(sid), ttlMs).catch(() => this.#touched.delete(sid));
  }

  /**
   * Claims a session whose owner `from` cannot be reached. One replica wins (a lock in the store); it
   * records itself as the owner and tells the others. Resolves to the record to restore, or undefined
   * when another replica is taking it over.
   */
  async takeOver(sid: string, from: SessionRecord): Promise<SessionRecord | undefined> {
    const won = await this.#store.setIfAbsent(`takeover:${sid}`, this.self, { ttlMs: TAKEOVER_LOCK_MS });
    if (!won) return undefined;
    const record = { ...from, owner: this.self };
    await this.save(sid, record);
    await this.#publish({ t: 'moved', sid, owner: this.self });
    return record;
  }

  /** The session ended (DELETE, or idle past its limit): no replica may resume it. */
  async remove(sid: string): Promise<void> {
    this.#touched.delete(sid);
    this.#owners.delete(sid);
    try {
      await this.#store.delete(key(sid));
    } catch {}
    await this.#publish({ t: 'closed', sid });
  }

  /** This replica stops serving `sid` (closed locally); the record stays for the others. */
  forget(sid: string): void {
    this.#touched.delete(sid);
  }

  /** Drops what this replica believed about `sid`'s owner (it did not answer). */
  unreachable(sid: string): void {
    this.#owners.delete(sid);
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
    this.#moved.clear();
  }

  async #publish(event: DirectoryEvent): Promise<void> {
    const sealed = { ...event, seal: this.#seal.sign(eventClaim(event)) };
    await this.#store.pubsub?.publish(CHANNEL, JSON.stringify(sealed)).catch(() => {});
  }

  #heard(message: string): void {
    let event: DirectoryEvent;
    try {
      event = JSON.parse(message) as DirectoryEvent;
    } catch {
      return;
    }
    if (typeof event?.sid !== 'string' || (event.t === 'moved' && typeof event.owner !== 'string')) return;
    if (!this.#seal.verify(eventClaim(event), event.seal)) return;
    if (event.t === 'moved') this.#remember(event.sid, event.owner);
    else this.#owners.delete(event.sid);
    for (const listener of this.#moved) listener(event.sid, event.t === 'moved' ? event.owner : undefined);
  }

  #remember(sid: string, owner: string): void {
    this.#owners.delete(sid);
    this.#owners.set(sid, owner);
    if (this.#owners.size > OWNER_CACHE_MAX) {
      const oldest = this.#owners.keys().next().value;
      if (oldest !== undefined) this.#owners.delete(oldest);
    }
  }
}

function key(sid: string): string {
  return `session:${sid}`;
}

/** What a replica seals when it writes itself down as a session's owner. */
function ownerClaim(sid: string, owner: string): string {
  return `${sid}\n${owner}`;
}

function eventClaim(event: DirectoryEvent): string {
  return event.t === 'moved' ? `moved\n${ownerClaim(event.sid, event.owner)}` : `closed\n${event.sid}`;
}

function parse(raw: string): (SessionRecord & { seal?: unknown }) | undefined {
  try {
    const value = JSON.parse(raw) as Partial<SessionRecord> & { seal?: unknown };
    if (typeof value.owner !== 'string') return undefined;
    return {
      owner: value.owner,
      seal: value.seal,
      subscriptions: Array.isArray(value.subscriptions)
        ? value.subscriptions.filter((u): u is string => typeof u === 'string')
        : [],
      ...(typeof value.logLevel === 'string' ? { logLevel: value.logLevel } : {}),
    };
  } catch {
    return undefined;
  }
}
