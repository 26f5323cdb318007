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
}

export type ResolvedCacheOptions = Required<CacheOptions>;

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_TTL_MS = 300_000;
export const DEFAULT_MAX_ENTRIES = 10_000;
export const DEFAULT_LINGER_MS = 30_000;
/** Timers cannot wait longer (Node turns larger delays into 1 ms). */
export const MAX_TTL_MS = 2_147_483_647;
/** The LRU preallocates per-entry arrays: keep that allocation sane. */
export const MAX_ENTRIES_LIMIT = 1_000_000;

const KNOWN = ['maxBytes', 'ttlMs', 'coherent', 'maxEntries', 'lingerMs'] as const;

/**
 * Checks the options a config gave the plugin and applies the defaults. Throws an Error naming the
 * option and saying what to write instead (the host reports it as PLUGIN_SETUP_FAILED).
 *
 * @example
 * resolveCacheOptions({ maxBytes: 8 * 1024 * 1024 }); // { maxBytes: 8388608, ttlMs: 300000, coherent: true, maxEntries: 10000 }
 */
export function resolveCacheOptions(options: unknown): ResolvedCacheOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(
      `options must be an object such as { "maxBytes": 67108864, "ttlMs": 300000, "coherent": true }, got ${describe(options)}.`,
    );
  }
  const record = options as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(KNOWN as readonly string[]).includes(key)) {
      throw new Error(`unknown option "${key}": the cache accepts ${KNOWN.map((k) => `"${k}"`).join(', ')}.`);
    }
  }
  return {
    maxBytes: integer(
      record,
      'maxBytes',
      DEFAULT_MAX_BYTES,
      Number.MAX_SAFE_INTEGER,
      'bytes, e.g. 67108864 for 64 MiB',
    ),
    ttlMs: integer(record, 'ttlMs', DEFAULT_TTL_MS, MAX_TTL_MS, 'milliseconds, e.g. 300000 for 5 minutes'),
    coherent: boolean(record, 'coherent', true),
    maxEntries: integer(record, 'maxEntries', DEFAULT_MAX_ENTRIES, MAX_ENTRIES_LIMIT, 'entries, e.g. 10000'),
    lingerMs: integer(
      record,
      'lingerMs',
      DEFAULT_LINGER_MS,
      MAX_TTL_MS,
      'milliseconds, 0 to release at once',
      0,
    ),
  };
}

function integer(
  record: Record<string, unknown>,
  key: string,
  fallback: number,
  max: number,
  unit: string,
  min = 1,
): number {
  const value = record[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(
      `option "${key}" must be a whole number from ${min} to ${max} (${unit}), got ${describe(value)}.`,
    );
  }
  return value;
}

function boolean(record: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const value = record[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new Error(`option "${key}" must be true or false, got ${describe(value)}.`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}
