import {
  definePlugin,
  GatewayError,
  type PluginHooks,
  type PluginSetupContext,
  type RequestMiddleware,
  type UpstreamCallMiddleware,
} from '@switchyard/core';
import { METRICS } from './metrics.js';
import { parseOptions, type RateLimitOptions, type ResolvedOptions } from './options.js';
import { PACKAGE } from './package-info.js';
import { TokenBuckets } from './token-buckets.js';
import { UpstreamQueues } from './upstream-queues.js';

export type { PerClientLimits, PerUpstreamLimits, RateLimitOptions } from './options.js';

type Meter = PluginSetupContext['meter'];
type Counter = ReturnType<Meter['createCounter']>;
type GaugeCallback = Parameters<ReturnType<Meter['createObservableGauge']>['addCallback']>[0];

/**
 * Refuses a request whose identity's bucket is empty, before any later plugin or upstream sees it.
 * Every request the plugins see costs one token: reads, lists, tool calls, prompt gets alike.
 */
function clientLimiter(buckets: TokenBuckets, rejected: Counter): RequestMiddleware {
  return async function rateLimitClient(ctx, next) {
    const verdict = buckets.take(ctx.identity.id);
    if (verdict.ok) return next();
    rejected.add(1, { kind: 'client' });
    return {
      ok: false,
      error: GatewayError.rateLimited(verdict.retryAfterMs, { identity: ctx.identity.id }),
    };
  };
}

/**
 * Sends each upstream call through its upstream's queue (a tool call holds its slot until the tool
 * answers); the gateway's own calls are never refused.
 */
function upstreamLimiter(queues: UpstreamQueues): UpstreamCallMiddleware {
  return function rateLimitUpstream(call, next) {
    const queued = {
      upstream: call.upstream,
      method: call.method,
      signal: call.request?.signal,
      refusable: call.request !== undefined,
    };
    return queues.run(queued, () => next());
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
 * Rate limiting for Switchyard: per-identity token buckets (`perClient`, answering `rate_limited` with
 * `retryAfterMs`) and per-upstream concurrency, start rate and queue bounds (`perUpstream`, answering
 * `upstream_busy` when the queue is full).
 *
 * @example
 * // switchyard.json
 * "plugins": [["@switchyard/plugin-rate-limit", {
 *   "perClient": { "requestsPerSecond": 10, "burst": 20 },
 *   "perUpstream": { "concurrency": 4, "maxQueue": 32 }
 * }]]
 */
export default definePlugin<RateLimitOptions>({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  setup(raw, { meter, logger }) {
    const options = parseOptions(raw);
    const rejected = meter.createCounter(METRICS.rejected, {
      description:
        'Requests refused by the rate limiter, by kind (client = rate_limited, upstream = upstream_busy)',
    });
    const hooks: PluginHooks = {};
    const buckets = options.perClient === undefined ? undefined : new TokenBuckets(options.perClient);
    if (buckets) hooks.request = clientLimiter(buckets, rejected);
    const limited = options.perUpstream !== undefined || options.upstreams.size > 0;
    const queues = limited
      ? new UpstreamQueues(limitsFor(options), () => rejected.add(1, { kind: 'upstream' }))
      : undefined;
    if (queues) hooks.upstreamCall = upstreamLimiter(queues);
    const stopObserving = queues ? observeQueues(meter, queues) : () => {};
    hooks.close = () => {
      stopObserving();
      queues?.close();
      buckets?.clear();
    };
    logger.debug('rate limits', {
      perClient: options.perClient,
      perUpstream: options.perUpstream,
      upstreams: Object.fromEntries(options.upstreams),
    });
    return hooks;
  },
});
