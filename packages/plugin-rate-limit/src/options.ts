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

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** A number check with one message for every way to get it wrong (`must be …, got <value>.`). */
function numberRule(what: string) {
  return (issue: { input?: unknown }) => `must be ${what}, got ${show(issue.input)}.`;
}
const positive = z
  .number({ error: numberRule('a number greater than 0') })
  .positive({ error: numberRule('a number greater than 0') })
  .finite({ error: numberRule('a number greater than 0') });
const count = z
  .number({ error: numberRule('an integer >= 1') })
  .int({ error: numberRule('an integer >= 1') })
  .min(1, { error: numberRule('an integer >= 1') });
const countFromZero = z
  .number({ error: numberRule('an integer >= 0') })
  .int({ error: numberRule('an integer >= 0') })
  .min(0, { error: numberRule('an integer >= 0') });

/** An object with exactly `keys` (a typo is refused, naming the keys it may have). */
function limits<T extends z.ZodRawShape>(shape: T, keys: readonly string[]) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `has unknown key "${issue.keys[0]}" (known: ${keys.join(', ')}).`
        : `must be an object with ${keys.join(', ')}, got ${show(issue.input)}.`,
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

const schema = z
  .strictObject(
    {
      perClient: perClient.optional(),
      perUpstream: perUpstream.optional(),
      upstreams: z
        .record(z.string().regex(SERVER_NAME_PATTERN), override, {
          error: (issue) =>
            issue.code === 'invalid_key'
              ? `is not a server name (${SERVER_NAME_PATTERN.source}): upstreams is keyed by server names.`
              : `must be an object keyed by server name, got ${show(issue.input)}.`,
        })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown option "${issue.keys[0]}" (known: ${TOP_KEYS.join(', ')}).`
          : `options must be an object with ${TOP_KEYS.join(', ')}, got ${show(issue.input)}.`,
    },
  )
  .superRefine((options, ctx) => {
    if (!options.perClient && !options.perUpstream && !options.upstreams) {
      ctx.addIssue({
        code: 'custom',
        message:
          'no limits configured: set perClient { requestsPerSecond, burst } and/or perUpstream { concurrency, maxQueue }.',
      });
    }
    // An override needs every required field, from itself or from perUpstream.
    for (const [name, own] of Object.entries(options.upstreams ?? {})) {
      if (own.concurrency === undefined && options.perUpstream === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['upstreams', name, 'concurrency'],
          message: numberRule('an integer >= 1')({}),
        });
      }
      if (own.maxQueue === undefined && options.perUpstream === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['upstreams', name, 'maxQueue'],
          message: numberRule('an integer >= 0')({}),
        });
      }
    }
  });

/**
 * Validates the plugin's options and applies defaults; throws an Error naming each offending option
 * (the gateway reports it as PLUGIN_SETUP_FAILED at start-up).
 */
export function parseOptions(value: unknown): ResolvedOptions {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.path.length === 0 ? issue.message : `option ${z.core.toDotPath(issue.path)} ${issue.message}`,
    );
    throw new Error(problems.join(' '));
  }
  const options = parsed.data;
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
