import { ErrorCode, GatewayError } from '../errors.js';
import { pagesOf } from '../listing/shared-pages.js';
import { type ListPage, walk } from '../listing/walk.js';
import type { Logger } from '../logger.js';
import { exposeUri } from '../naming/uris.js';
import { asRecords } from '../payload.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { offered } from '../upstream/pool.js';
import type { ChangedNames } from './changed-names.js';
import { ListingChanges } from './listing-changes.js';
import { type ListedItems, listedItems } from './listing-diff.js';

/** The two lists one `resources/list_changed` speaks for: items named by their exposed URI (template). */
const LISTS = [
  { method: 'resources/list', field: 'resources', key: 'uri' },
  { method: 'resources/templates/list', field: 'resourceTemplates', key: 'uriTemplate' },
] as const;

type ResourceList = (typeof LISTS)[number];

/**
 * Which exposed URIs an upstream's `resources/list_changed` changed (DESIGN §13): its resources by URI and
 * its resource templates by URI template, as clients see them (`name+uri`; an unprefixed server's own),
 * each full listing compared with the one before. Listed only for upstreams whose resources some endpoint
 * narrows with globs (`matters`): for the others nobody needs names, nothing is listed and a change is
 * `all` of the upstream, as before. `all` too when the listing failed, was cut off
 * (`limits.maxPagesPerList`, a repeating cursor) or has nothing before it to compare with.
 */
export class ResourceChanges {
  readonly #changes: Readonly<Record<ResourceList['key'], ListingChanges>> = {
    uri: new ListingChanges(),
    uriTemplate: new ListingChanges(),
  };
  /** Listings in flight, per upstream (a connection's first and a change's share one). */
  readonly #listing = new Map<string, Promise<boolean>>();
  readonly #matters: (upstream: string) => boolean;
  readonly #maxPages: () => number;
  readonly #log: Logger;

  constructor(matters: (upstream: string) => boolean, maxPages: () => number, logger: Logger) {
    this.#matters = matters;
    this.#maxPages = maxPages;
    this.#log = logger;
  }

  /**
   * `u` connected, or the endpoints changed: when its names matter and nothing of it is listed yet, its
   * listing now is what its later changes are compared with.
   */
  async baseline(u: UpstreamConnection, list: ListPage = pagesOf(u)): Promise<void> {
    if (this.#matters(u.name) && !this.#compared(u.name)) await this.#list(u, list);
  }

  /**
   * `u` said its resources changed: the exposed URIs (and URI templates) that changed since the last ones
   * taken, none when the listing shows no difference, `all` when they cannot be told or nobody needs them.
   * A listing already running may have been answered before the change: this one starts after it.
   */
  async relist(u: UpstreamConnection, list: ListPage = pagesOf(u)): Promise<ChangedNames> {
    if (!this.#matters(u.name)) {
      // Nobody narrows it (now): a listing kept would be stale when somebody does again.
      this.forget(u.name);
      return 'all';
    }
    await this.#listing.get(u.name);
    const compared = this.#compared(u.name);
    const complete = await this.#list(u, list);
    const changed = new Set([...this.#changes.uri.take(u.name), ...this.#changes.uriTemplate.take(u.name)]);
    return complete && compared ? changed : 'all';
  }

  /** Whether a listing of `upstream` is there to compare the next one with. */
  #compared(upstream: string): boolean {
    return this.#changes.uri.listed(upstream) && this.#changes.uriTemplate.listed(upstream);
  }

  /** Forgets what `upstream` listed (it dropped): its next listing is a first. */
  forget(upstream: string): void {
    this.#changes.uri.forget(upstream);
    this.#changes.uriTemplate.forget(upstream);
  }

  /** Forgets every upstream not in `kept` (a reload removed or replaced it), and what it is listing now. */
  retain(kept: ReadonlySet<string>): void {
    this.#changes.uri.retain(kept);
    this.#changes.uriTemplate.retain(kept);
    for (const name of this.#listing.keys()) if (!kept.has(name)) this.forget(name);
  }

  /** Lists `u`'s resources and templates fully, once at a time; whether both listings ended. */
  #list(u: UpstreamConnection, list: ListPage): Promise<boolean> {
    const running = this.#listing.get(u.name);
    if (running) return running;
    const done = this.#read(u, list).finally(() => this.#listing.delete(u.name));
    this.#listing.set(u.name, done);
    return done;
  }

  async #read(u: UpstreamConnection, list: ListPage): Promise<boolean> {
    if (u.state !== 'ready' || !offered(u.capabilities, 'resources')) return false;
    const epochs = {
      uri: this.#changes.uri.epoch(u.name),
      uriTemplate: this.#changes.uriTemplate.epoch(u.name),
    };
    try {
      const [resources, templates] = await Promise.all(LISTS.map((l) => this.#walk(u, list, l)));
      if (resources === undefined || templates === undefined) {
        this.#log.warn("could not compare an upstream's resources: its listing did not end", {
          upstream: u.name,
        });
        this.forget(u.name);
        return false;
      }
      this.#changes.uri.record(u.name, epochs.uri, resources);
      this.#changes.uriTemplate.record(u.name, epochs.uriTemplate, templates);
      return true;
    } catch (error) {
      this.#log.warn("could not compare an upstream's resources", { upstream: u.name, error: String(error) });
      this.forget(u.name);
      return false;
    }
  }

  /** One list's items by exposed URI (template); undefined when cut off. */
  async #walk(u: UpstreamConnection, pages: ListPage, list: ResourceList): Promise<ListedItems | undefined> {
    const { method, field, key } = list;
    const items: Record<string, unknown>[] = [];
    const onPage = (page: Record<string, unknown>) => {
      for (const item of asRecords(page[field])) {
        const uri = item?.[key];
        if (typeof uri === 'string') items.push({ ...item, [key]: exposeUri(u.name, uri, u.config.prefix) });
      }
    };
    try {
      const end = await walk(pages, method, onPage, this.#maxPages());
      return end === 'complete' ? listedItems(items, key) : undefined;
    } catch (error) {
      // An upstream may not answer the template listing at all: it has no templates.
      if (key === 'uriTemplate' && GatewayError.fromUnknown(error).code === ErrorCode.MethodNotFound)
        return new Map();
      throw error;
    }
  }
}
