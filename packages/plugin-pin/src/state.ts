import type { KnownDefinitions, PinnedDefinition } from './definitions.js';
import { changedFields, type Digest, definitionDigest, type PinKind } from './digest.js';
import { emptyLock, type LockFile, pinOf, withPin } from './lock-file.js';

/**
 * What a definition is against the lock file: `pinned` (its digest is the pin), `new` (no pin for its
 * name), `changed` (a pin that differs). `new` and `changed` are quarantined under `enforce`.
 */
export type Verdict = 'pinned' | 'new' | 'changed';

/** What one listed definition came to. */
export interface Sighting {
  readonly server: string;
  readonly kind: PinKind;
  /** The name as the server itself gives it. */
  readonly name: string;
  readonly digest: Digest;
  readonly verdict: Verdict;
  /** The pinned fields that differ from the pinned definition; empty when that one was never seen here. */
  readonly changed: readonly string[];
  /** The first time this digest is seen for this name in this process (a change worth one log line). */
  readonly fresh: boolean;
  /** Pinned just now, on first use (the lock file needs writing). */
  readonly pinnedNow: boolean;
}

/** One quarantined tool or prompt, for `/admin/status`. */
export interface QuarantineEntry {
  readonly server: string;
  readonly kind: PinKind;
  readonly name: string;
  readonly verdict: 'new' | 'changed';
  readonly changed: readonly string[];
  readonly digest: Digest;
  readonly pinned?: Digest;
  /** The definition last listed. */
  readonly definition: Readonly<Record<string, unknown>>;
  /** The pinned definition, when it is known (seen here, or read from the definitions file). */
  readonly before?: Readonly<Record<string, unknown>>;
}

interface Seen {
  readonly digest: Digest;
  readonly definition: Readonly<Record<string, unknown>>;
}

/** How many distinct definitions are kept in memory to say which fields changed (oldest dropped first). */
const MAX_KNOWN = 10_000;

const key = (...parts: string[]) => parts.join('\u0000');

/**
 * The pins (the lock file's content) against what the upstreams list: every definition seen, per
 * server, kind and name, with its digest. Pure state: reading and writing the lock file is the caller's.
 *
 * Trust on first use: created without a lock file, each server's tools (and prompts) are pinned as the
 * first listing of them shows them, until that listing's last page; anything later is judged as usual.
 */
export class PinState {
  #lock: LockFile;
  readonly #firstUse: boolean;
  readonly #closed = new Set<string>();
  readonly #seen = new Map<string, Seen & { server: string; kind: PinKind; name: string }>();
  readonly #known = new Map<Digest, PinnedDefinition>();

  constructor(lock: LockFile | undefined) {
    this.#lock = lock ?? emptyLock();
    this.#firstUse = lock === undefined;
  }

  get lock(): LockFile {
    return this.#lock;
  }

  /** Whether the state started without a lock file (trust on first use). */
  get firstUse(): boolean {
    return this.#firstUse;
  }

  /** The definitions known by digest (seen here, or read from the definitions file), for the diff. */
  get known(): KnownDefinitions {
    return this.#known;
  }

  /** Learns a pinned definition (from the definitions file): a change from it can then be shown. */
  remember(kind: PinKind, digest: Digest, definition: Readonly<Record<string, unknown>>): void {
    this.#remember(kind, digest, definition);
  }

  /** Replaces the pins (the lock file changed on disk); what was seen stays, judged against them. */
  replaceLock(lock: LockFile): void {
    this.#lock = lock;
  }

  pin(server: string, kind: PinKind, name: string): Digest | undefined {
    return pinOf(this.#lock, server, kind, name);
  }

  /** Records one listed definition and judges it (pinning it on first use). */
  see(server: string, kind: PinKind, definition: Readonly<Record<string, unknown>>): Sighting | undefined {
    const name = definition.name;
    if (typeof name !== 'string') return undefined;
    const digest = definitionDigest(kind, definition);
    const k = key(server, kind, name);
    const fresh = this.#seen.get(k)?.digest !== digest;
    this.#seen.set(k, { server, kind, name, digest, definition });
    this.#remember(kind, digest, definition);
    let pinnedNow = false;
    if (
      this.#firstUse &&
      !this.#closed.has(key(server, kind)) &&
      this.pin(server, kind, name) === undefined
    ) {
      this.#lock = withPin(this.#lock, server, kind, name, digest);
      pinnedNow = true;
    }
    const { verdict, changed } = this.#judge(kind, name, digest, definition, this.pin(server, kind, name));
    return { server, kind, name, digest, verdict, changed, fresh, pinnedNow };
  }

  /** The first listing of a server's tools or prompts is complete: first use pins no more of them. */
  closeFirstUse(server: string, kind: PinKind): void {
    this.#closed.add(key(server, kind));
  }

  /**
   * Whether a call of this tool or prompt may go upstream: its last listed definition is pinned, or it
   * was not listed here yet but has a pin (`unseen`, nothing to compare with), else quarantined.
   */
  verdict(server: string, kind: PinKind, name: string): Verdict | 'unseen' {
    const seen = this.#seen.get(key(server, kind, name));
    const pin = this.pin(server, kind, name);
    if (seen === undefined) return pin === undefined ? 'new' : 'unseen';
    return this.#judge(kind, name, seen.digest, seen.definition, pin).verdict;
  }

  /** The digest of the definition last listed under that name; undefined when it was never listed. */
  listed(server: string, kind: PinKind, name: string): Digest | undefined {
    return this.#seen.get(key(server, kind, name))?.digest;
  }

  /**
   * Pins the last listed definition; returns the new lock, or undefined when that name was never listed
   * or (given `digest`) its last listed definition is another one than the one approved.
   */
  approve(server: string, kind: PinKind, name: string, digest?: Digest): LockFile | undefined {
    const seen = this.#seen.get(key(server, kind, name));
    if (seen === undefined || (digest !== undefined && seen.digest !== digest)) return undefined;
    this.#lock = withPin(this.#lock, server, kind, name, seen.digest);
    return this.#lock;
  }

  /** Every listed tool and prompt whose last definition is not its pin. */
  quarantined(): QuarantineEntry[] {
    const out: QuarantineEntry[] = [];
    for (const seen of this.#seen.values()) {
      const pin = this.pin(seen.server, seen.kind, seen.name);
      const { verdict, changed } = this.#judge(seen.kind, seen.name, seen.digest, seen.definition, pin);
      if (verdict === 'pinned') continue;
      out.push({
        server: seen.server,
        kind: seen.kind,
        name: seen.name,
        verdict,
        changed,
        digest: seen.digest,
        ...(pin === undefined ? {} : { pinned: pin }),
        definition: seen.definition,
        ...(pin === undefined || this.#known.get(pin) === undefined
          ? {}
          : { before: this.#known.get(pin)!.definition }),
      });
    }
    return out;
  }

  #judge(
    kind: PinKind,
    _name: string,
    digest: Digest,
    definition: Readonly<Record<string, unknown>>,
    pin: Digest | undefined,
  ): { verdict: Verdict; changed: readonly string[] } {
    if (pin === undefined) return { verdict: 'new', changed: [] };
    if (pin === digest) return { verdict: 'pinned', changed: [] };
    const before = this.#known.get(pin);
    return {
      verdict: 'changed',
      changed: before === undefined ? [] : changedFields(kind, before.definition, definition),
    };
  }

  #remember(kind: PinKind, digest: Digest, definition: Readonly<Record<string, unknown>>): void {
    if (this.#known.has(digest)) return;
    this.#known.set(digest, { kind, definition });
    if (this.#known.size > MAX_KNOWN) this.#known.delete(this.#known.keys().next().value!);
  }
}
