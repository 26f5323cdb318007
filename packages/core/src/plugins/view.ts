import { GatewayError } from '../errors.js';
import { subscribable } from '../features/resources.js';
import { exposeUri } from '../naming/uris.js';
import type { PluginWatches } from '../notify/watches.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import type { ResourceRouter } from '../routing/resource-router.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { PluginGateway } from './define.js';

export interface PluginViewDeps {
  pool: UpstreamPool;
  router: ResourceRouter;
  tools: NamedCatalog;
  prompts: NamedCatalog;
  watches: PluginWatches;
  /** The upstream a completion ref routes to (exactly as the gateway routes it). */
  completionTarget(ref: unknown): string | undefined;
  /** The tool call that created a task the caller holds. */
  task: PluginGateway['task'];
}

/** What plugins may ask of the running gateway (see PluginGateway). */
export function pluginView({
  pool,
  router,
  tools,
  prompts,
  watches,
  completionTarget,
  task,
}: PluginViewDeps): PluginGateway {
  return {
    upstreams: () => pool.names,
    route: (exposedUri) => {
      const found = router.find(exposedUri);
      return found && { upstream: found.upstream.name, uri: found.uri };
    },
    tool: (exposedName) => tools.index.resolve(exposedName),
    prompt: (exposedName) => prompts.index.resolve(exposedName),
    exposeName: (kind, upstream, name) => (kind === 'tools' ? tools : prompts).index.expose(upstream, name),
    completionTarget,
    task,
    prefixed: (upstream) => pool.get(upstream)?.config.prefix ?? false,
    exposeUri: (upstream, uri) => exposeUri(upstream, uri, pool.require(upstream).config.prefix),
    canSubscribe: (upstream) => subscribable(pool.get(upstream)),
    watch: async (exposedUri, onInvalidate) => {
      const { upstream, uri } = router.route(exposedUri);
      if (!subscribable(upstream)) {
        throw GatewayError.invalidParams(`Upstream '${upstream.name}' cannot subscribe to ${exposedUri}.`);
      }
      return watches.watch(upstream.name, uri, onInvalidate);
    },
  };
}
