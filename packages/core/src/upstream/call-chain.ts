import type { RequestContext } from '../context.js';
import type { UpstreamCallMiddleware } from '../plugins/define.js';
import type { GatewayStats } from '../stats/recorder.js';
import type { GatewayTelemetry } from '../telemetry.js';

type Result = Record<string, unknown>;
type Params = Record<string, unknown> | undefined;

/** Runs one upstream call through the plugins' upstream-call middleware and telemetry, then `send`s it. */
export type CallChain = (
  upstream: string,
  method: string,
  params: Params,
  request: RequestContext | undefined,
  send: (params: Params) => Promise<Result>,
) => Promise<Result>;

/**
 * Builds the chain: the first middleware is outermost, the innermost step sends; telemetry (when an SDK
 * is registered) wraps the whole call in a client span. With neither, it is a direct call. `stats`
 * measures each send itself (what the upstream took, without plugin queues).
 */
export function callChain(
  around: readonly UpstreamCallMiddleware[] = [],
  telemetry?: GatewayTelemetry,
  stats?: GatewayStats,
): CallChain {
  const measure = (upstream: string, send: (params: Params) => Promise<Result>) =>
    stats ? (p: Params) => stats.upstreamCall(upstream, () => send(p)) : send;
  const through: CallChain =
    around.length === 0
      ? (upstream, _method, params, _request, send) => measure(upstream, send)(params)
      : (upstream, method, params, request, send) => {
          const sent = measure(upstream, send);
          const step = (i: number, p: Params): Promise<Result> => {
            const layer = around[i];
            if (!layer) return sent(p);
            return layer({ upstream, method, params: p, request }, (override) => step(i + 1, override ?? p));
          };
          return step(0, params);
        };
  if (!telemetry) return through;
  return (upstream, method, params, request, send) =>
    telemetry.upstreamCall(upstream, method, () => through(upstream, method, params, request, send));
}
