import type { RequestContext } from '../context.js';
import type { UpstreamCallMiddleware } from '../plugins/define.js';
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
 * is registered) wraps the whole call in a client span. With neither, it is a direct call.
 */
export function callChain(
  around: readonly UpstreamCallMiddleware[] = [],
  telemetry?: GatewayTelemetry,
): CallChain {
  const through: CallChain =
    around.length === 0
      ? (_upstream, _method, params, _request, send) => send(params)
      : (upstream, method, params, request, send) => {
          const step = (i: number, p: Params): Promise<Result> => {
            const layer = around[i];
            if (!layer) return send(p);
            return layer({ upstream, method, params: p, request }, (override) => step(i + 1, override ?? p));
          };
          return step(0, params);
        };
  if (!telemetry) return through;
  return (upstream, method, params, request, send) =>
    telemetry.upstreamCall(upstream, method, () => through(upstream, method, params, request, send));
}
