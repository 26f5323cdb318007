import { SERVER_NAME_PATTERN } from '@switchyard/core';
import { z } from 'zod';

/**
 * Per-identity budget: `burst` requests at once, refilled at `requestsPerSecond`. A token bucket in this
 * replica's memory; with a shared Redis store (`store.redis`), one fixed window of `burst` requests per
 * `burst / requestsPerSecond` seconds (rounded to whole seconds) shared by every replica.
 */
export interface PerClientLimits {
  /** Sustained requests per second each identity may make (> 0; fractions allowed, e.g. 0.5). */
  requestsPerSecond: number;
  /** Bucket capacity: requests an idle identity may make at once. Default `max(1, ceil(requestsPerSecond))`. */
  burst?: number;
  /** Most identities tracked at once in memory (memory bound; not used with a shared store); default 10000. */
  maxClients?: number;
}

/**
 * Per-upstream bounds on the calls the gateway sends to one server. Always per replica, store or not:
 * they bound this replica's own connections and calls, so N replicas may have N × `concurrency` calls
 * in flight to one upstream.
 */
export interface PerUpstreamLimits {
  /** Calls in flight to one upstream at once (integer >= 1). */
  concurrency: number;
  /** Calls that may wait for a slot (integer >= 0, running calls not counted); more fail with `upstream_busy`. */
  maxQueue: number;
  /** Calls started per second on one upstream (> 0); default unlimited. */
  requestsPerSecond?: number;
}

/** Options of `@switchyard/plugin-rate-limit` (at least one of the three must be given). */
export interface RateLimitOptions {
  perClient?: PerClientLimits;
  /** Limits applied to every upstream (except where `upstreams` overrides them); per replica. */
  perUpstream?: PerUpstreamLimits;
  /** Per-server overrides keyed by server name; unset fields come from `perUpstream`. */
  upstreams?: Record<string, Partial<PerUpstreamLimits>>;
}

export interface ResolvedClientLimits {
  readonly requestsPerSecond: number;
  readonly burst: number;
  readonly maxClients: number;
}

export interface ResolvedUpstreamLimits {
  readonly concurrency: number;
  readonly maxQueue: number;
  readonly requestsPerSecond: number | undefined;
}

export interface ResolvedOptions {
  readonly perClient: ResolvedClientLimits | undefined;
  readonly perUpstream: ResolvedUpstreamLimits | undefined;
  readonly upstreams: ReadonlyMap<string, ResolvedUpstreamLimits>;
}

export const DEFAULT_MAX_CLIENTS = 10_000;

const TOP_KEYS = ['perClient', 'perUpstream', 'upstreams'];
const CLIENT_KEYS = ['requestsPerSecond', 'burst', 'maxClients'];
const UPSTREAM_KEYS = ['concurrency', 'maxQueue', 'requestsPerSecond'];

/** An integer >= `min`, one message for every way to get it wrong. */
function integerFrom(min: number) {
  const error = `expected an integer >= ${min}`;
  return z.number({ error }).int({ error }).min(min, { error });
}
const positiveError = 'expected a number greater than 0';
const positive = z
  .number({ error: positiveError })
  .positive({ error: positiveError })
  .finite({ error: positiveError });
const count = integerFrom(1);
const countFromZero = integerFrom(0);

/** An object with exactly `keys` (a typo is refused, naming the keys it may have). */
function limits<T extends z.ZodRawShape>(shape: T, keys: readonly string[]) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key (known: ${keys.join(', ')})`
        : `expected an object with ${keys.join(', ')}`,
  });
}

const perClient = limits(
  { requestsPerSecond: positive, burst: count.optional(), maxClients: count.optional() },
  CLIENT_KEYS,
);
const perUpstream = limits(
  { concurrency: count, maxQueue: countFromZero, requestsPerSecond: positive.optional() },
  UPSTREAM_KEYS,
);
const override = limits(
  {
    concurrency: count.optional(),
    maxQueue: countFromZero.optional(),
    requestsPerSecond: positive.optional(),
  },
  UPSTREAM_KEYS,
);

/**
 * The plugin's options, checked by the plugin host (which names the plugin and the option's path when
 * one is wrong), resolved: defaults applied and each override completed from `perUpstream`.
 */
export const rateLimitOptions = z
  .strictObject(
    {
      perClient: perClient.optional(),
      perUpstream: perUpstream.optional(),
      upstreams: z
        .record(z.string().regex(SERVER_NAME_PATTERN), override, {
          error: (issue) =>
            issue.code === 'invalid_key'
              ? `is not a server name (${SERVER_NAME_PATTERN.source}): upstreams is keyed by server names`
              : 'expected an object keyed by server name',
        })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown option (known: ${TOP_KEYS.join(', ')})`
          : `expected an object with ${TOP_KEYS.join(', ')}`,
    },
  )
  .superRefine((options, ctx) => {
    if (!options.perClient && !options.perUpstream && !options.upstreams) {
      ctx.addIssue({
        code: 'custom',
        message:
          'no limits configured: set perClient { requestsPerSecond, burst } and/or perUpstream { concurrency, maxQueue }',
      });
    }
    // An override needs every required field, from itself or from perUpstream.
    if (options.perUpstream) return;
    for (const [name, own] of Object.entries(options.upstreams ?? {})) {
      if (own.concurrency === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['upstreams', name, 'concurrency'],
          message: 'expected an integer >= 1 (here, or in perUpstream)',
        });
      }
      if (own.maxQueue === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['upstreams', name, 'maxQueue'],
          message: 'expected an integer >= 0 (here, or in perUpstream)',
        });
      }
    }
  })
  .transform(resolved);

/** The checked options with the defaults applied and the overrides completed. */
function resolved(options: RateLimitOptions): ResolvedOptions {
  const client = options.perClient;
  const base = options.perUpstream;
  return {
    perClient: client && {
      requestsPerSecond: client.requestsPerSecond,
      burst: client.burst ?? Math.max(1, Math.ceil(client.requestsPerSecond)),
      maxClients: client.maxClients ?? DEFAULT_MAX_CLIENTS,
    },
    perUpstream: base && { ...base, requestsPerSecond: base.requestsPerSecond },
    upstreams: new Map(
      Object.entries(options.upstreams ?? {}).map(([name, own]) => [
        name,
        {
          // Present: checked above (from the override itself or from perUpstream).
          concurrency: own.concurrency ?? base?.concurrency ?? 1,
          maxQueue: own.maxQueue ?? base?.maxQueue ?? 0,
          requestsPerSecond: own.requestsPerSecond ?? base?.requestsPerSecond,
        },
      ]),
    ),
  };
}
