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

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_TTL_MS = 300_000;
export const DEFAULT_MAX_ENTRIES = 10_000;
export const DEFAULT_LINGER_MS = 30_000;
/** Timers cannot wait longer (Node turns larger delays into 1 ms). */
export const MAX_TTL_MS = 2_147_483_647;
/** The LRU preallocates per-entry arrays: keep that allocation sane. */
export const MAX_ENTRIES_LIMIT = 1_000_000;

const KNOWN = ['maxBytes', 'ttlMs', 'coherent', 'maxEntries', 'lingerMs', 'l2MaxBytes'];

/** A whole number within [min, max], one message for every way to get it wrong. */
function wholeNumber(max: number, unit: string, min = 1) {
  const error = `expected a whole number from ${min} to ${max} (${unit})`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/**
 * The cache's options, checked by the plugin host (which names the plugin and the option's path when
 * one is wrong), defaults applied.
 *
 * @example
 * cacheOptions.parse({ maxBytes: 8 * 1024 * 1024 }); // { maxBytes: 8388608, ttlMs: 300000, coherent: true, maxEntries: 10000, lingerMs: 30000 }
 */
export const cacheOptions = z.strictObject(
  {
    maxBytes: wholeNumber(Number.MAX_SAFE_INTEGER, 'bytes, e.g. 67108864 for 64 MiB').default(
      DEFAULT_MAX_BYTES,
    ),
    ttlMs: wholeNumber(MAX_TTL_MS, 'milliseconds, e.g. 300000 for 5 minutes').default(DEFAULT_TTL_MS),
    coherent: z.boolean({ error: 'expected true or false' }).default(true),
    maxEntries: wholeNumber(MAX_ENTRIES_LIMIT, 'entries, e.g. 10000').default(DEFAULT_MAX_ENTRIES),
    lingerMs: wholeNumber(MAX_TTL_MS, 'milliseconds, 0 to release at once', 0).default(DEFAULT_LINGER_MS),
    l2MaxBytes: wholeNumber(Number.MAX_SAFE_INTEGER, 'bytes, e.g. 268435456 for 256 MiB').optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option (the cache accepts ${KNOWN.join(', ')})`
        : 'expected an object such as { "maxBytes": 67108864, "ttlMs": 300000, "coherent": true }',
  },
);

/** The options with defaults applied. */
export type ResolvedCacheOptions = z.output<typeof cacheOptions>;
