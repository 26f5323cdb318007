import type { RequestContext } from '../context.js';
import type { Outcome } from '../middleware.js';
import type { UpstreamCall, UpstreamCallMiddleware } from '../plugins/upstream-call.js';
import type { GatewayStats } from '../stats/recorder.js';
import type { GatewayTelemetry } from '../telemetry.js';
import { composeCallLayers } from './call-layers.js';

type Result = Record<string, unknown>;
type Params = Record<string, unknown> | undefined;

/**
 * Runs one upstream call through the plugins' upstream-call middleware and telemetry, then `send`s it.
 * Resolves with the result or rejects with the GatewayError of the call's error outcome.
 */
export type CallChain = (
  upstream: string,
  method: string,
  params: Params,
  request: RequestContext | undefined,
  send: (params: Params) => Promise<Result>,
) => Promise<Result>;

/** An upstream call and how the connection sends it. */
interface SentCall extends UpstreamCall {
  readonly send: (params: Params) => Promise<Result>;
}

/**
 * Builds the chain: the middleware composed around the send (see `composeCallLayers`); telemetry (when an
 * SDK is registered) wraps the whole call, repeats included, in a client span; `stats` measures each send
 * itself (what the upstream took, without plugin queues).
 */
export function callChain(
  around: readonly UpstreamCallMiddleware[] = [],
  telemetry?: GatewayTelemetry,
  stats?: GatewayStats,
): CallChain {
  const sent = (call: SentCall) =>
    stats ? stats.upstreamCall(call.upstream, () => call.send(call.params)) : call.send(call.params);
  const run = composeCallLayers<SentCall>(around, async (call) => ({ ok: true, result: await sent(call) }));
  const through: CallChain = async (upstream, method, params, request, send) =>
    resultOf(await run({ upstream, method, params, request, send }));
  if (!telemetry) return through;
  return (upstream, method, params, request, send) =>
    telemetry.upstreamCall(upstream, method, () => through(upstream, method, params, request, send));
}

/** The one place an upstream call's outcome returns to the connection's contract: a result, or a throw. */
function resultOf(outcome: Outcome): Result {
  if (outcome.ok) return outcome.result;
  throw outcome.error;
}
