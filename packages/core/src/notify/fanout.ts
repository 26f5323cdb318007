import { pagesOf, sharedPages } from '../listing/shared-pages.js';
import type { Logger } from '../logger.js';
import { exposeUri } from '../naming/uris.js';
import type { UpstreamNotification } from '../plugins/define.js';
import type { ChangedNames } from '../routing/changed-names.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import type { ResourceChanges } from '../routing/resource-changes.js';
import type { UnprefixedCatalog } from '../routing/unprefixed-catalog.js';
import type { SubscriptionTable } from '../subscriptions.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import type { RequestOrigin } from '../upstream/origin.js';
import { withoutHopMeta } from './hop-meta.js';
import { type ListChangedCoalescer, type ListedKind, listChangedKind } from './list-changed.js';
import { RefreshThrottle } from './refresh-throttle.js';
import { atLeast, type SessionRegistry } from './sessions.js';
import { TASK_STATUS_METHOD } from './task-status.js';
import type { PluginWatches } from './watches.js';

export interface FanoutDeps {
  sessions: SessionRegistry;
  subscriptions: SubscriptionTable<RequestOrigin>;
  watches: PluginWatches;
  listChanged: ListChangedCoalescer;
  resources: UnprefixedCatalog;
  /** Which exposed URIs a `resources/list_changed` changed, where an endpoint narrows them. */
  resourceChanges: ResourceChanges;
  tools: NamedCatalog;
  prompts: NamedCatalog;
  /** The plugins' notification hooks. */
  plugins: (notification: UpstreamNotification) => Promise<void> | undefined;
  /** Whether session `sessionId`'s endpoint exposes an upstream's resource (a reload may have hidden it). */
  exposes: (sessionId: string, upstream: string, exposedUri: string) => boolean;
  /** Relays a task status notification to the caller that created the task. */
  taskStatus: (upstream: UpstreamConnection, params: Record<string, unknown>) => void;
  logger: Logger;
}

/**
 * Whether the client of a request wants a log message of `level`: a modern client only when its request
 * asked for logs (the envelope's log level), a legacy one unless its session set a higher level.
 */
function wantsLog(origin: RequestOrigin, sessions: SessionRegistry, level: unknown): boolean {
  const client = origin.context?.client;
  if (client?.era === 'modern') return client.logLevel !== undefined && atLeast(level, client.logLevel);
  return sessions.wantsLog(origin.sessionId, level);
}

/** How many identities the requests of `origins` act as (a request without a context counts apart). */
function callers(origins: Iterable<RequestOrigin>): number {
  const ids = new Set<string | RequestOrigin>();
  for (const origin of origins) ids.add(origin.context?.identity.id ?? origin);
  return ids.size;
}

/**
 * Re-emits upstream notifications to exactly the downstream sessions that should get them (DESIGN §7):
 * `resources/updated` to the sessions (and plugin watches) subscribed to that resource, list changes
 * (once the gateway's own index is refreshed) to the sessions whose endpoint exposes what changed, log
 * messages to the sessions whose requests were in flight when they all act as one identity, task
 * statuses to the task's creator.
 */
export class NotificationFanout {
  readonly #deps: FanoutDeps;
  /** Re-lists after `list_changed`, at most one per upstream and kind per interval (storms coalesce). */
  readonly #refreshes = new RefreshThrottle();

  constructor(deps: FanoutDeps) {
    this.#deps = deps;
  }

  relay(
    u: UpstreamConnection,
    method: string,
    params: Record<string, unknown>,
    origins: readonly RequestOrigin[],
  ): void {
    const { sessions, subscriptions, watches, plugins, logger } = this.#deps;
    const held = plugins({ upstream: u.name, method, params });
    if (method === 'notifications/resources/updated') {
      const uri = params.uri;
      if (typeof uri !== 'string') return;
      const deliver = () => {
        const exposed = { ...withoutHopMeta(params), uri: exposeUri(u.name, uri, u.config.prefix) };
        for (const id of subscriptions.subscribers(u.name, uri)) {
          if (watches.updated(id)) continue;
          if (this.#deps.exposes(id, u.name, exposed.uri)) sessions.send(id, method, exposed);
        }
      };
      // A plugin still spreading the update (a shared cache telling the other replicas) goes first.
      if (held) void settledWithin(held, PLUGIN_HOLD_MS).then(deliver);
      else deliver();
      return;
    }
    if (method === TASK_STATUS_METHOD) {
      this.#deps.taskStatus(u, params);
      return;
    }
    if (method === 'notifications/message') {
      // A log message belongs to a request in flight; on a single channel nothing says which one, so each
      // session with one in flight hears it once, on its newest request's own stream. It never crosses
      // identities: with requests of several callers in flight, it could be about what one of them may
      // not see, so nobody hears it.
      const newest = new Map<string, RequestOrigin>();
      for (const origin of origins) newest.set(origin.sessionId, origin);
      if (newest.size === 0 || callers(newest.values()) > 1) {
        logger.debug('upstream log message not tied to one caller', {
          upstream: u.name,
          sessions: newest.size,
          data: params.data,
        });
        return;
      }
      const routed = { ...params, logger: typeof params.logger === 'string' ? params.logger : u.name };
      for (const origin of newest.values()) {
        if (!wantsLog(origin, sessions, params.level)) continue;
        origin.notify(method, routed).catch((error) => {
          logger.debug('could not deliver a log message', {
            session: origin.sessionId,
            error: String(error),
          });
        });
      }
      return;
    }
    const kind = listChangedKind(method);
    if (kind !== undefined)
      this.#refreshes.trigger(`${u.name} ${kind}`, () => this.#refreshThenAnnounce(u, kind));
  }

  /**
   * The gateway's own index of the list is refreshed first, so a client that re-lists sees the change,
   * and the change is announced only to the endpoints that expose a name it touched (DESIGN §13); one the
   * listing does not show reaches the endpoints that show the upstream's whole list. Resources are
   * named by exposed URI only where an endpoint narrows that upstream's resources with globs; elsewhere a
   * change reaches every endpoint exposing something of the upstream, with no listing to tell it.
   */
  async #refreshThenAnnounce(u: UpstreamConnection, kind: ListedKind): Promise<void> {
    const { resources, resourceChanges, tools, prompts, listChanged } = this.#deps;
    let changed: ChangedNames | undefined = 'all';
    if (kind === 'tools') changed = await tools.relist(u);
    else if (kind === 'prompts') changed = await prompts.relist(u);
    else {
      // An unprefixed server's index and the change's names read the same pages, asked once.
      const pages = sharedPages(pagesOf(u));
      const unprefixed = resources.has(u.name)
        ? resources.refresh(u.name, pages, u.capabilities).catch(() => {})
        : undefined;
      [changed] = await Promise.all([resourceChanges.relist(u, pages), unprefixed]);
    }
    if (u.state === 'closed' || changed === undefined) return;
    listChanged.schedule(kind, u.name, changed);
  }
}

/** How long an `updated` waits for the plugins still spreading it before it goes to the sessions anyway. */
const PLUGIN_HOLD_MS = 1000;

function settledWithin(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
