import type { ServerCapabilities } from '@modelcontextprotocol/client';
import { pagesOf, sharedPages } from '../listing/shared-pages.js';
import type { Logger } from '../logger.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import type { ResourceChanges } from '../routing/resource-changes.js';
import type { UnprefixedCatalog } from '../routing/unprefixed-catalog.js';
import type { SubscriptionTable } from '../subscriptions.js';
import type { UpstreamConnection, UpstreamListener } from '../upstream/connection.js';
import type { RequestOrigin } from '../upstream/origin.js';
import { type FanoutDeps, NotificationFanout } from './fanout.js';
import type { ListChangedCoalescer, ListedKind } from './list-changed.js';
import type { PluginWatches } from './watches.js';

export interface UpstreamEventsDeps {
  resources: UnprefixedCatalog;
  resourceChanges: ResourceChanges;
  tools: NamedCatalog;
  prompts: NamedCatalog;
  subscriptions: SubscriptionTable<RequestOrigin>;
  watches: PluginWatches;
  listChanged: ListChangedCoalescer;
  fanout: NotificationFanout;
  logger: Logger;
}

/**
 * What the gateway does when an upstream connects or drops: it indexes what the upstream offers,
 * re-establishes the subscriptions sessions hold on it, and tells sessions that the lists changed
 * (DESIGN §7) — except for the first connection of a startup, which no session could have seen.
 */
export class UpstreamEvents implements UpstreamListener {
  readonly #deps: UpstreamEventsDeps;
  readonly #firstAttempt = new Map<string, () => void>();

  /** The events and the fan-out they feed, over the same indexes, sessions and subscriptions. */
  static withFanout(deps: FanoutDeps): UpstreamEvents {
    return new UpstreamEvents({ ...deps, fanout: new NotificationFanout(deps) });
  }

  constructor(deps: UpstreamEventsDeps) {
    this.#deps = deps;
  }

  /**
   * Resolves once each of `names` has connected (and been indexed) or failed its first attempt, or after
   * `maxWaitMs`: a slow upstream then keeps connecting in the background while the others serve, and
   * sessions hear `list_changed` when it arrives.
   */
  settled(names: readonly string[], maxWaitMs: number): Promise<void> {
    const all = Promise.all(
      names.map((name) => new Promise<void>((resolve) => this.#firstAttempt.set(name, resolve))),
    ).then(() => {});
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.#firstAttempt.clear();
        resolve();
      }, maxWaitMs);
      timer.unref?.();
    });
    return Promise.race([all, waited]).finally(() => clearTimeout(timer));
  }

  ready(u: UpstreamConnection): void {
    const { resources, resourceChanges, tools, prompts, subscriptions, logger } = this.#deps;
    // An unprefixed server's index and the baseline of its resource names read the same pages, asked once.
    const pages = sharedPages(pagesOf(u));
    const tasks: Promise<unknown>[] = [
      tools.refresh(u),
      prompts.refresh(u),
      resourceChanges.baseline(u, pages),
    ];
    if (resources.has(u.name)) {
      tasks.push(
        resources
          .refresh(u.name, pages, u.capabilities)
          .catch((error) =>
            logger.warn('could not index unprefixed server', { upstream: u.name, error: String(error) }),
          ),
      );
    }
    for (const uri of subscriptions.urisOf(u.name)) {
      tasks.push(
        u.subscribe(uri).catch((error) =>
          logger.warn('could not re-establish subscription after reconnect', {
            upstream: u.name,
            uri,
            error: String(error),
          }),
        ),
      );
    }
    void Promise.all(tasks).then(() => {
      const initial = this.#firstAttempt.has(u.name);
      this.#attempted(u);
      if (!initial) this.#announce(u.name, u.capabilities);
    });
  }

  down(u: UpstreamConnection, error: unknown): void {
    this.#deps.logger.warn('upstream disconnected', {
      upstream: u.name,
      error: error instanceof Error ? error.message : String(error),
    });
    // Updates sent while it is down are lost: whatever plugins hold for it may be stale.
    this.#deps.watches.upstreamDown(u.name);
    // All its items vanish now and come back with it: its lists are compared afresh from then on.
    this.#deps.tools.forget(u.name);
    this.#deps.prompts.forget(u.name);
    this.#deps.resourceChanges.forget(u.name);
    this.#announce(u.name, u.knownCapabilities);
  }

  /**
   * A reload took `u` out of the pool (removed, or replaced by a connection with its new config): what it
   * contributed vanished from every list, and plugins' watches on it are stale.
   */
  retired(u: UpstreamConnection): void {
    this.#attempted(u);
    this.#deps.watches.upstreamDown(u.name);
    this.#announce(u.name, u.knownCapabilities);
  }

  failed(u: UpstreamConnection, _error?: unknown): void {
    this.#attempted(u);
  }

  /** start() settles once every upstream has connected or failed its first attempt. */
  #attempted(u: UpstreamConnection): void {
    this.#firstAttempt.get(u.name)?.();
    this.#firstAttempt.delete(u.name);
  }

  notification(
    u: UpstreamConnection,
    method: string,
    params: Record<string, unknown>,
    origins: readonly RequestOrigin[],
  ): void {
    this.#deps.fanout.relay(u, method, params, origins);
  }

  /** An upstream's items appeared or vanished: every list it contributes to changed, all its names. */
  #announce(upstream: string, capabilities: ServerCapabilities | undefined): void {
    const kinds: ListedKind[] = ['resources'];
    if (capabilities?.tools) kinds.push('tools');
    if (capabilities?.prompts) kinds.push('prompts');
    for (const kind of kinds) this.#deps.listChanged.schedule(kind, upstream);
  }
}
