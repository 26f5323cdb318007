import { GatewayError } from '../errors.js';
import type { WalkEnd } from '../listing/walk.js';
import type { Logger } from '../logger.js';
import { nameFilter } from '../naming/curation.js';
import { asRecords } from '../payload.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { offered, type UpstreamPool } from '../upstream/pool.js';
import type { ChangedNames } from './changed-names.js';
import { ListingChanges } from './listing-changes.js';
import { listedItems } from './listing-diff.js';
import { type NamedKind, type NamedTarget, NameIndex } from './name-index.js';

const NOUN = { tools: 'tool', prompts: 'prompt' } as const;
/** Unknown names re-list an upstream at most this often. */
const MISS_INTERVAL_MS = 500;

/** How a refresh ended: the listing's walk, or it failed, or it was not made (see {@link NamedCatalog.relist}). */
type RefreshEnd = WalkEnd | 'failed' | 'skipped';

/**
 * The gateway's live knowledge of every upstream's tools (or prompts): the {@link NameIndex}, refreshed
 * from each upstream's full listing when it connects and when it announces a change, and consulted to
 * route a call by its exposed name.
 */
export class NamedCatalog {
  readonly kind: NamedKind;
  readonly index: NameIndex;
  readonly #pool: UpstreamPool;
  readonly #log: Logger;
  /** Refreshes in flight, per upstream: concurrent misses share one listing. */
  readonly #refreshing = new Map<string, Promise<RefreshEnd>>();
  /** The exposed names each upstream's listings changed, until a `list_changed` announces them. */
  readonly #changes = new ListingChanges();
  /**
   * Upstreams whose last full listing did not end (a repeating cursor, or `limits.maxPagesPerList` pages):
   * a miss does not list them again (DESIGN §11), or every unknown name a client tried would cost up to
   * `maxPagesPerList` upstream requests; their `list_changed` still does.
   */
  readonly #endless = new Set<string>();
  /** When an unknown name last had each upstream listed, to bound listings driven by unknown names. */
  readonly #missedAt = new Map<string, number>();
  #onListed: ((upstream: string, items: readonly Record<string, unknown>[]) => void) | undefined;

  constructor(kind: NamedKind, pool: UpstreamPool, logger: Logger) {
    this.kind = kind;
    this.#pool = pool;
    this.#log = logger;
    this.index = new NameIndex(kind, this.#entries(), logger);
  }

  /**
   * Hears every full listing the catalog reads: the upstream's items as clients see them (renamed to
   * their exposed names; curated and colliding ones left out). Tool search builds its index from these.
   */
  onListed(listener: (upstream: string, items: readonly Record<string, unknown>[]) => void): void {
    this.#onListed = listener;
  }

  #exposed(upstream: string, items: readonly Record<string, unknown>[]): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const item of items) {
      if (typeof item.name !== 'string') continue;
      const exposed = this.index.expose(upstream, item.name);
      const owner = exposed === undefined ? undefined : this.index.resolve(exposed);
      if (owner?.upstream === upstream && owner.name === item.name) out.push({ ...item, name: exposed });
    }
    return out;
  }

  /** Follows a change of the pool's upstream set; `kept` are the upstreams whose connection stayed. */
  reconfigure(kept: ReadonlySet<string>): void {
    this.index.setUpstreams(this.#entries(), (name) => kept.has(name));
    for (const name of this.#endless) if (!kept.has(name)) this.#endless.delete(name);
    this.#changes.retain(kept);
    // A listing still running for a connection the reload replaced is not recorded either.
    for (const name of this.#refreshing.keys()) if (!kept.has(name)) this.#changes.forget(name);
  }

  /** Forgets what `upstream` listed (it dropped): its connection is announced whole when it comes back. */
  forget(upstream: string): void {
    this.#changes.forget(upstream);
  }

  #entries() {
    return this.#pool.ordered.map((u) => ({
      name: u.name,
      prefix: u.config.prefix,
      filter: nameFilter(this.kind === 'tools' ? u.config.tools : u.config.prompts),
    }));
  }

  /** Re-reads `upstream`'s full listing of this kind (when it is connected and offers it). */
  refresh(upstream: UpstreamConnection): Promise<void> {
    return this.#refresh(upstream).then(() => {});
  }

  /**
   * Lists `upstream` afresh after it announced a change, and says which exposed names changed since the
   * last ones announced: added, removed or defined differently (no name: the list is as it was, see
   * {@link ChangedNames}). A listing already running when the change was announced may have been answered
   * before it, so this one starts after it. `all` when the names cannot be told: the gateway does not list
   * the upstream itself (a personal one, or one that does not offer this kind), or the listing failed or
   * was cut off. Undefined, nothing to announce, while it is not connected: its connection, when it comes,
   * is announced on its own.
   */
  async relist(upstream: UpstreamConnection): Promise<ChangedNames | undefined> {
    await this.#refreshing.get(upstream.name);
    const end = await this.#refresh(upstream);
    const changed = this.#changes.take(upstream.name);
    if (end === 'complete') return changed;
    if (end !== 'skipped') return 'all';
    return upstream.state === 'ready' || upstream.state === 'personal' ? 'all' : undefined;
  }

  #refresh(upstream: UpstreamConnection): Promise<RefreshEnd> {
    const running = this.#refreshing.get(upstream.name);
    if (running) return running;
    if (upstream.state !== 'ready' || !offered(upstream.capabilities, this.kind)) {
      return Promise.resolve('skipped');
    }
    const items: Record<string, unknown>[] = [];
    const epoch = this.#changes.epoch(upstream.name);
    const done = this.index
      .refresh(
        upstream.name,
        async (method, cursor) => {
          const page = await upstream.request(method, cursor === undefined ? {} : { cursor });
          items.push(...asRecords(page[this.kind]));
          return page;
        },
        this.#pool.limits.maxPagesPerList,
      )
      .then((end): RefreshEnd => {
        const exposed = this.#exposed(upstream.name, items);
        this.#changes.record(upstream.name, epoch, listedItems(exposed));
        this.#onListed?.(upstream.name, exposed);
        if (end === 'complete') this.#endless.delete(upstream.name);
        else this.#endless.add(upstream.name);
        if (end !== 'complete') {
          this.#log.warn(`indexed only part of an upstream's ${this.kind}: its listing did not end`, {
            upstream: upstream.name,
            why: end,
          });
        }
        return end;
      })
      .catch((error): RefreshEnd => {
        this.#log.warn(`could not index the ${this.kind} of an upstream`, {
          upstream: upstream.name,
          error: String(error),
        });
        return 'failed';
      })
      .finally(() => this.#refreshing.delete(upstream.name));
    this.#refreshing.set(upstream.name, done);
    return done;
  }

  /**
   * Where an exposed name leads. A name the index does not know yet sends the upstreams it could belong
   * to for a fresh listing first (an upstream may add items without announcing it; not one whose last
   * listing never ended, nor one an unknown name had listed within the last 500 ms, so unknown names
   * cannot drive listings at any rate); still unknown, it is refused with the names that do exist.
   */
  async locate(exposed: string): Promise<NamedTarget> {
    const known = this.index.resolve(exposed);
    if (known) return known;
    const now = Date.now();
    await Promise.all(
      this.index
        .candidates(exposed)
        .filter(
          (name) => !this.#endless.has(name) && (this.#missedAt.get(name) ?? 0) <= now - MISS_INTERVAL_MS,
        )
        .map((name) => this.#pool.get(name))
        .filter((u): u is UpstreamConnection => u !== undefined)
        .map((u) => {
          this.#missedAt.set(u.name, now);
          return this.refresh(u);
        }),
    );
    const found = this.index.resolve(exposed);
    if (found) return found;
    throw this.#unknown(exposed);
  }

  #unknown(exposed: string): GatewayError {
    return unknownNamed(this.kind, exposed);
  }
}

/**
 * The refusal of a tool or prompt name nobody serves. It says how to find what exists, not what exists: a
 * policy plugin or the endpoint (a virtual server) may hide some names from this caller, and a hidden
 * name must answer exactly like an unknown one.
 */
export function unknownNamed(kind: 'tools' | 'prompts', exposed: string): GatewayError {
  const noun = NOUN[kind];
  return GatewayError.invalidParams(
    `Unknown ${noun} '${exposed}'. This gateway exposes ${kind} as <server>__<${noun}>; call ${kind}/list to see the ones you can use.`,
    { reason: `${noun}_not_found`, name: exposed },
  );
}
