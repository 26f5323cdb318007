import { z } from 'zod';

/** Options of `@switchyard/plugin-cache` (DESIGN §8 contract: `maxBytes`, `ttlMs`, `coherent`). */
export interface CacheOptions {
  /** Upper bound of the cached payload bytes (sum of each entry's encoded JSON size); default 64 MiB. */
  maxBytes?: number;
  /** Longest time an entry is served; an upstream `ttlMs` can only shorten it. Default 300000 (5 min). */
  ttlMs?: number;
  /**
   * Hold an upstream subscription on every cached URI (when the upstream offers subscriptions) and drop
   * the entry as soon as the upstream says it changed. Default true.
   */
  coherent?: boolean;
  /**
   * Upper bound of the number of entries, whatever their size (each entry also costs bookkeeping and,
   * when coherent, one upstream subscription). Default 10000. Not part of the contract: an addition.
   */
  maxEntries?: number;
  /**
   * How long the upstream subscription of a URI is kept after its last entry left (capacity, TTL or an
   * update), so that reading it again soon neither re-subscribes nor waits for the subscription; 0
   * releases it at once. At most `maxEntries` URIs linger. Default 30000. Not part of the contract.
   */
  lingerMs?: number;
  /**
   * Upper bound of the bytes the second level holds in the shared store (only with `store.redis`,
   * DESIGN §12); default `maxBytes`. Not part of the contract: an addition.
   */
  l2MaxBytes?: number;
}

export type ResolvedCacheOptions = Required<Omit<CacheOptions, 'l2MaxBytes'>> & { l2MaxBytes?: number };

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_TTL_MS = 300_000;
export const DEFAULT_MAX_ENTRIES = 10_000;
export const DEFAULT_LINGER_MS = 30_000;
/** Timers cannot wait longer (Node turns larger delays into 1 ms). */
export const MAX_TTL_MS = 2_147_483_647;
/** The LRU preallocates per-entry arrays: keep that allocation sane. */
export const MAX_ENTRIES_LIMIT = 1_000_000;

const KNOWN = ['maxBytes', 'ttlMs', 'coherent', 'maxEntries', 'lingerMs', 'l2MaxBytes'];

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}

/** An optional whole-number option within [min, max], one message for every way to get it wrong. */
function wholeNumber(fallback: number, max: number, unit: string, min = 1) {
  return anyWholeNumber(max, unit, min).default(fallback);
}

/** A whole number within [min, max], without a default. */
function anyWholeNumber(max: number, unit: string, min = 1) {
  const error = (issue: { input?: unknown }) =>
    `must be a whole number from ${min} to ${max} (${unit}), got ${describe(issue.input)}.`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

const schema = z.strictObject(
  {
    maxBytes: wholeNumber(DEFAULT_MAX_BYTES, Number.MAX_SAFE_INTEGER, 'bytes, e.g. 67108864 for 64 MiB'),
    ttlMs: wholeNumber(DEFAULT_TTL_MS, MAX_TTL_MS, 'milliseconds, e.g. 300000 for 5 minutes'),
    coherent: z
      .boolean({ error: (issue) => `must be true or false, got ${describe(issue.input)}.` })
      .default(true),
    maxEntries: wholeNumber(DEFAULT_MAX_ENTRIES, MAX_ENTRIES_LIMIT, 'entries, e.g. 10000'),
    lingerMs: wholeNumber(DEFAULT_LINGER_MS, MAX_TTL_MS, 'milliseconds, 0 to release at once', 0),
    l2MaxBytes: anyWholeNumber(Number.MAX_SAFE_INTEGER, 'bytes, e.g. 268435456 for 256 MiB').optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option "${issue.keys[0]}": the cache accepts ${KNOWN.map((k) => `"${k}"`).join(', ')}.`
        : `options must be an object such as { "maxBytes": 67108864, "ttlMs": 300000, "coherent": true }, got ${describe(issue.input)}.`,
  },
);

/**
 * Checks the options a config gave the plugin and applies the defaults. Throws an Error naming each
 * offending option and saying what to write instead (the host reports it as PLUGIN_SETUP_FAILED).
 *
 * @example
 * resolveCacheOptions({ maxBytes: 8 * 1024 * 1024 }); // { maxBytes: 8388608, ttlMs: 300000, coherent: true, maxEntries: 10000, lingerMs: 30000 }
 */
export function resolveCacheOptions(options: unknown): ResolvedCacheOptions {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) =>
    issue.path.length === 0 ? issue.message : `option ${z.core.toDotPath(issue.path)} ${issue.message}`,
  );
  throw new Error(problems.join(' '));
}
