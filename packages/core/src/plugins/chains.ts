import type { RequestContext, RequestMiddleware } from '../context.js';
import { errorForEra } from '../downstream/era.js';
import type { Logger } from '../logger.js';
import { compose, type Outcome } from '../middleware.js';
import { RateLimitedLog } from '../rate-limited-log.js';
import type { GatewayStats } from '../stats/recorder.js';
import type { GatewayTelemetry } from '../telemetry.js';
import { callChain } from '../upstream/call-chain.js';
import type { PluginChains } from './active.js';
import { type LoadedPlugin, pluginHooks } from './host.js';

export interface ChainParts {
  /** Extra request middleware, inside the plugins'. */
  middleware: readonly RequestMiddleware[];
  /** The innermost step: the gateway's own handling of the request. */
  dispatch(ctx: RequestContext): Promise<Outcome>;
  telemetry: GatewayTelemetry | undefined;
  stats: GatewayStats;
  log: Logger;
}

/**
 * How the gateway turns one set of plugins into its chains. An error takes the form the caller's era
 * expects where it becomes an outcome, so every plugin sees the code the client receives (DESIGN §9:
 * -32002 or -32602 for a missing resource).
 */
export function pluginChains(parts: ChainParts): (plugins: readonly LoadedPlugin[]) => PluginChains {
  // A plugin's mistakes are logged once per plugin, hook and kind in a while, across reloads.
  const noise = new RateLimitedLog(parts.log);
  return (plugins) => {
    const hooks = pluginHooks(plugins, noise);
    return {
      run: compose([...hooks.request, ...parts.middleware], parts.dispatch, (error, ctx) =>
        errorForEra(error, ctx.client),
      ),
      chain: callChain(hooks.upstreamCall, parts.telemetry, parts.stats),
      notify: (n) => hooks.notification(n, parts.log),
    };
  };
}
