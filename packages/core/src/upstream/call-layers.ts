import { compose, type Middleware, type Outcome } from '../middleware.js';
import type { UpstreamCall, UpstreamCallContext, UpstreamCallMiddleware } from '../plugins/upstream-call.js';

/** Runs one upstream call (`C`: the call, and whatever its innermost step needs to send it). */
export type CallRun<C extends UpstreamCall> = (call: C) => Promise<Outcome>;

/**
 * Composes upstream-call middleware around `send` with `compose`, exactly as request middleware is
 * composed: the first layer is outermost, `next()` may be called once, anything thrown becomes an error
 * outcome. Each layer gets its own view of the call: the params it holds when it calls `next()` are the
 * ones the layers inside it (and `send`) get, and its `repeat(params)` is a fresh run of the layers inside
 * it and `send`, on a copy of the call with those params.
 */
export function composeCallLayers<C extends UpstreamCall>(
  layers: readonly UpstreamCallMiddleware[],
  send: CallRun<C>,
): CallRun<C> {
  // inner[i]: the layers from i on, around `send`; inner[layers.length] is `send` alone.
  const inner: CallRun<C>[] = [];
  const viewed = layers.map(
    (layer, i): Middleware<C> =>
      (call, next) => {
        const view: UpstreamCallContext = {
          upstream: call.upstream,
          method: call.method,
          params: call.params,
          request: call.request,
          repeat: (params) => inner[i + 1]!({ ...call, params }),
        };
        return layer(view, () => {
          call.params = view.params;
          return next();
        });
      },
  );
  for (let i = layers.length; i >= 0; i--) inner[i] = compose(viewed.slice(i), send);
  return inner[0]!;
}
