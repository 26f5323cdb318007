import type { RequestContext } from '../context.js';
import type { Middleware, Outcome } from '../middleware.js';

/** One call the gateway makes to one upstream (a list fan-out makes one per upstream). */
export interface UpstreamCall {
  readonly upstream: string;
  readonly method: string;
  /**
   * What is sent. A layer may replace them (with a new object) before calling `next()`: the layers
   * inside it and the upstream get the new params; the layer keeps seeing its own.
   */
  params: Record<string, unknown> | undefined;
  /**
   * The downstream request this call serves (identity, session, state), or undefined for the
   * gateway's own calls (indexing unprefixed servers, re-subscribing after a reconnect).
   */
  readonly request?: RequestContext;
}

/** An upstream call as one layer of upstream-call middleware sees it. */
export interface UpstreamCallContext extends UpstreamCall {
  /**
   * Sends another call to the same upstream (same method and request) with `params`, through the layers
   * inside this one and then the upstream: a fresh run of them, with its own `next()`. For a layer that
   * needs more than one upstream call, e.g. to fetch the following page of a list, since `next()` may be
   * called only once. Resolves with that call's outcome.
   */
  repeat(params: Record<string, unknown> | undefined): Promise<Outcome>;
}

/**
 * Wraps each upstream call, the way request middleware wraps a request (one `compose`): the first plugin
 * is outermost, `next()` sends the call through the inner layers and may be called at most once, the
 * outcome is a value (`{ ok: true, result }` or `{ ok: false, error }`), and anything thrown becomes an
 * error outcome the outer layers see.
 */
export type UpstreamCallMiddleware = Middleware<UpstreamCallContext>;
