import { SERVER_NAME_PATTERN } from '@switchyard/core';

/** Per-identity token bucket: `burst` requests at once, refilled at `requestsPerSecond`. */
export interface PerClientLimits {
  /** Sustained requests per second each identity may make (> 0; fractions allowed, e.g. 0.5). */
  requestsPerSecond: number;
  /** Bucket capacity: requests an idle identity may make at once. Default `max(1, ceil(requestsPerSecond))`. */
  burst?: number;
  /** Most identities tracked at once (memory bound); default 10000. */
  maxClients?: number;
}

/** Per-upstream bounds on the calls the gateway sends to one server. */
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
  /** Limits applied to every upstream (except where `upstreams` overrides them). */
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

const TOP_KEYS = ['perClient', 'perUpstream', 'upstreams'] as const;
const CLIENT_KEYS = ['requestsPerSecond', 'burst', 'maxClients'] as const;
const UPSTREAM_KEYS = ['concurrency', 'maxQueue', 'requestsPerSecond'] as const;

type Rule = 'positive' | 'count' | 'countFromZero';

const RULE_TEXT: Record<Rule, string> = {
  positive: 'a number greater than 0',
  count: 'an integer >= 1',
  countFromZero: 'an integer >= 0',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, what: string, got: unknown): never {
  throw new Error(`option ${path} must be ${what}, got ${JSON.stringify(got) ?? String(got)}.`);
}

function object(value: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (!isObject(value)) fail(path, `an object with ${keys.join(', ')}`, value);
  const unknown = Object.keys(value).filter((k) => !keys.includes(k));
  if (unknown.length > 0) {
    throw new Error(`option ${path} has unknown key "${unknown[0]}" (known: ${keys.join(', ')}).`);
  }
  return value;
}

function number(value: unknown, path: string, rule: Rule): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (rule === 'positive' ? value > 0 : Number.isInteger(value) && value >= (rule === 'count' ? 1 : 0));
  if (!ok) fail(path, RULE_TEXT[rule], value);
  return value as number;
}

function optional(value: unknown, path: string, rule: Rule): number | undefined {
  return value === undefined ? undefined : number(value, path, rule);
}

function parseClient(value: unknown): ResolvedClientLimits {
  const o = object(value, 'perClient', CLIENT_KEYS);
  const requestsPerSecond = number(o.requestsPerSecond, 'perClient.requestsPerSecond', 'positive');
  return {
    requestsPerSecond,
    burst: optional(o.burst, 'perClient.burst', 'count') ?? Math.max(1, Math.ceil(requestsPerSecond)),
    maxClients: optional(o.maxClients, 'perClient.maxClients', 'count') ?? DEFAULT_MAX_CLIENTS,
  };
}

function parseUpstream(
  value: unknown,
  path: string,
  inherited: ResolvedUpstreamLimits | undefined,
): ResolvedUpstreamLimits {
  const o = object(value, path, UPSTREAM_KEYS);
  const concurrency = optional(o.concurrency, `${path}.concurrency`, 'count') ?? inherited?.concurrency;
  const maxQueue = optional(o.maxQueue, `${path}.maxQueue`, 'countFromZero') ?? inherited?.maxQueue;
  if (concurrency === undefined) fail(`${path}.concurrency`, RULE_TEXT.count, undefined);
  if (maxQueue === undefined) fail(`${path}.maxQueue`, RULE_TEXT.countFromZero, undefined);
  const requestsPerSecond =
    optional(o.requestsPerSecond, `${path}.requestsPerSecond`, 'positive') ?? inherited?.requestsPerSecond;
  return { concurrency, maxQueue, requestsPerSecond };
}

function parseOverrides(
  value: unknown,
  inherited: ResolvedUpstreamLimits | undefined,
): Map<string, ResolvedUpstreamLimits> {
  const overrides = new Map<string, ResolvedUpstreamLimits>();
  if (value === undefined) return overrides;
  if (!isObject(value)) fail('upstreams', 'an object keyed by server name', value);
  for (const [name, limits] of Object.entries(value)) {
    if (!SERVER_NAME_PATTERN.test(name)) {
      fail(`upstreams`, `keyed by server names (${SERVER_NAME_PATTERN.source})`, name);
    }
    overrides.set(name, parseUpstream(limits, `upstreams.${name}`, inherited));
  }
  return overrides;
}

/**
 * Validates the plugin's options and applies defaults; throws an Error naming the offending option
 * (the gateway reports it as PLUGIN_SETUP_FAILED at start-up).
 */
export function parseOptions(value: unknown): ResolvedOptions {
  const o = object(value ?? {}, '(plugin options)', TOP_KEYS);
  if (o.perClient === undefined && o.perUpstream === undefined && o.upstreams === undefined) {
    throw new Error(
      'no limits configured: set perClient { requestsPerSecond, burst } and/or perUpstream { concurrency, maxQueue }.',
    );
  }
  const perClient = o.perClient === undefined ? undefined : parseClient(o.perClient);
  const perUpstream =
    o.perUpstream === undefined ? undefined : parseUpstream(o.perUpstream, 'perUpstream', undefined);
  return { perClient, perUpstream, upstreams: parseOverrides(o.upstreams, perUpstream) };
}
