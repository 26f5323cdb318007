import {
  definePlugin,
  GATEWAY_REQUEST_KEY,
  GatewayError,
  type PluginHooks,
  type PluginSetupContext,
  type RequestMiddleware,
  type UpstreamCallMiddleware,
} from '@switchyard/core';
import { chooseClientLimiter } from './choose-client-limiter.js';
import type { ClientLimiter } from './client-limiter.js';
import { METRICS } from './metrics.js';
import { type ResolvedOptions, rateLimitOptions } from './options.js';
import { PACKAGE } from './package-info.js';
import { UpstreamQueues } from './upstream-queues.js';

export type { PerClientLimits, PerUpstreamLimits, RateLimitOptions } from './options.js';

type Meter = PluginSetupContext['meter'];
type Counter = ReturnType<Meter['createCounter']>;
type GaugeCallback = Parameters<ReturnType<Meter['createObservableGauge']>['addCallback']>[0];

/**
 * Refuses a request whose identity has spent its budget, before any later plugin or upstream sees it.
 * Every request the plugins see costs one: reads, lists, tool calls, prompt gets alike. With a shared
 * store in `refuse` mode, a request whose budget cannot be checked is refused with `store_unavailable`.
 */
function clientLimiter(limiter: ClientLimiter, rejected: Counter): RequestMiddleware {
  return async function rateLimitClient(ctx, next) {
    // The gateway's own request on the caller's behalf (tool search's listing) costs the caller nothing.
    if (ctx.state.get(GATEWAY_REQUEST_KEY) === true) return next();
    const pending = limiter.consume(ctx.identity.id);
    // The in-memory limiter answers synchronously: no extra turn of the event loop for it.
    const verdict = pending instanceof Promise ? await pending : pending;
    if (verdict.ok) return next();
    if ('unavailable' in verdict) {
      rejected.add(1, { kind: 'store' });
      return { ok: false, error: GatewayError.storeUnavailable(verdict.unavailable) };
    }
    rejected.add(1, { kind: 'client' });
    return {
      ok: false,
      error: GatewayError.rateLimited(verdict.retryAfterMs, { identity: ctx.identity.id }),
    };
  };
}

/**
 * Sends each upstream call through its upstream's queue (a tool call holds its slot until the tool
 * answers, repeats of inner layers included); the gateway's own calls are never refused. A refusal
 * (`upstream_busy`, cancelled while waiting, shutting down) rejects, and becomes the call's error outcome.
 */
function upstreamLimiter(queues: UpstreamQueues): UpstreamCallMiddleware {
  return function rateLimitUpstream(call, next) {
    const queued = {
      upstream: call.upstream,
      method: call.method,
      signal: call.request?.signal,
      refusable: call.request !== undefined,
    };
    return queues.run(queued, next);
  };
}

/** Reports each upstream's waiting calls on the queued gauge; returns how to stop. */
function observeQueues(meter: Meter, queues: UpstreamQueues): () => void {
  const gauge = meter.createObservableGauge(METRICS.queued, {
    description: 'Upstream calls waiting for a slot, by upstream',
  });
  const observe: GaugeCallback = (result) => {
    for (const [upstream, waiting] of queues.waitingByUpstream())
      result.observe(waiting, { 'switchyard.upstream': upstream });
  };
  gauge.addCallback(observe);
  return () => gauge.removeCallback(observe);
}

function limitsFor(options: ResolvedOptions) {
  return (upstream: string) => options.upstreams.get(upstream) ?? options.perUpstream;
}

/**
 * Rate limiting for Switchyard: per-identity budgets (`perClient`, answering `rate_limited` with
 * `retryAfterMs`) and per-upstream concurrency, start rate and queue bounds (`perUpstream`, answering
 * `upstream_busy` when the queue is full).
 *
 * `perClient` is one token bucket per identity in this replica's memory, or, when the gateway's store
 * is shared Redis (`store.redis`, DESIGN §12), one budget per identity shared by every replica.
 * `perUpstream` always stays per replica: it bounds this replica's own calls to each upstream.
 *
 * @example
 * // switchyard.json
 * "plugins": [["@switchyard/plugin-rate-limit", {
 *   "perClient": { "requestsPerSecond": 10, "burst": 20 },
 *   "perUpstream": { "concurrency": 4, "maxQueue": 32 }
 * }]]
 */
export default definePlugin({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  options: rateLimitOptions,
  setup(options, { meter, logger, store }) {
    const rejected = meter.createCounter(METRICS.rejected, {
      description:
        'Requests refused by the rate limiter, by kind (client = rate_limited, upstream = upstream_busy, store = store_unavailable)',
    });
    const hooks: PluginHooks = {};
    const clients =
      options.perClient === undefined ? undefined : chooseClientLimiter(options.perClient, store, logger);
    if (clients) hooks.request = clientLimiter(clients, rejected);
    const limited = options.perUpstream !== undefined || options.upstreams.size > 0;
    const queues = limited
      ? new UpstreamQueues(limitsFor(options), () => rejected.add(1, { kind: 'upstream' }))
      : undefined;
    if (queues) hooks.upstreamCall = upstreamLimiter(queues);
    const stopObserving = queues ? observeQueues(meter, queues) : () => {};
    hooks.close = () => {
      stopObserving();
      queues?.close();
      clients?.close();
    };
    logger.debug('rate limits', {
      perClient: options.perClient,
      perUpstream: options.perUpstream,
      upstreams: Object.fromEntries(options.upstreams),
    });
    return hooks;
  },
});
