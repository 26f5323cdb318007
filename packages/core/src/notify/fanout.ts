import type { Logger } from '../logger.js';
import { exposeUri } from '../naming/uris.js';
import type { UpstreamNotification } from '../plugins/define.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import type { UnprefixedCatalog } from '../routing/unprefixed-catalog.js';
import type { SubscriptionTable } from '../subscriptions.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import type { RequestOrigin } from '../upstream/origin.js';
import { type ListChangedCoalescer, listChangedKind } from './list-changed.js';
import type { SessionRegistry } from './sessions.js';
import type { PluginWatches } from './watches.js';

export interface FanoutDeps {
  sessions: SessionRegistry;
  subscriptions: SubscriptionTable<RequestOrigin>;
  watches: PluginWatches;
  listChanged: ListChangedCoalescer;
  resources: UnprefixedCatalog;
  tools: NamedCatalog;
  prompts: NamedCatalog;
  /** The plugins' notification hooks. */
  plugins: (notification: UpstreamNotification) => void;
  logger: Logger;
}

/**
 * Re-emits upstream notifications to exactly the downstream sessions that should get them (DESIGN §7):
 * `resources/updated` to the sessions (and plugin watches) subscribed to that resource, list changes
 * to every session once the gateway's own index is refreshed, log messages to the sessions whose
 * requests were in flight.
 */
export class NotificationFanout {
  readonly #deps: FanoutDeps;

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
    plugins({ upstream: u.name, method, params });
    if (method === 'notifications/resources/updated') {
      if (typeof params.uri !== 'string') return;
      const exposed = { ...params, uri: exposeUri(u.name, params.uri, u.config.prefix) };
      for (const id of subscriptions.subscribers(u.name, params.uri)) {
        if (!watches.updated(id)) sessions.send(id, method, exposed);
      }
      return;
    }
    if (method === 'notifications/message') {
      const targets = new Set(origins.map((o) => o.sessionId));
      if (targets.size === 0) {
        logger.debug('upstream log message not tied to a request', { upstream: u.name, data: params.data });
        return;
      }
      const routed = { ...params, logger: typeof params.logger === 'string' ? params.logger : u.name };
      for (const id of targets) if (sessions.wantsLog(id, params.level)) sessions.send(id, method, routed);
      return;
    }
    const kind = listChangedKind(method);
    if (kind !== undefined) void this.#refreshThenAnnounce(u, kind);
  }

  /** The gateway's own index of the list is refreshed first, so a client that re-lists sees the change. */
  async #refreshThenAnnounce(u: UpstreamConnection, kind: 'resources' | 'tools' | 'prompts'): Promise<void> {
    const { resources, tools, prompts, listChanged } = this.#deps;
    if (kind === 'tools') await tools.refresh(u);
    else if (kind === 'prompts') await prompts.refresh(u);
    else if (resources.has(u.name)) {
      await resources
        .refresh(u.name, (m, cursor) => u.request(m, cursor === undefined ? {} : { cursor }))
        .catch(() => {});
    }
    listChanged.schedule(kind);
  }
}
