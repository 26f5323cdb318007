/**
 * Reads Redis's own numbers (ioredis, on one short-lived connection per probe that sends nothing but the
 * probe's commands): commands processed, clients, memory in use, key count and the shapes of the keys.
 */
import { Redis } from 'ioredis';

/** Runs `probe` on a fresh connection to `url`, then drops it (no ready check, client info or QUIT). */
async function withRedis<T>(url: string, probe: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableReadyCheck: false,
    disableClientInfo: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    commandTimeout: 5_000,
  });
  try {
    await redis.connect();
    return await probe(redis);
  } finally {
    redis.disconnect();
  }
}

/** The `field:value` lines of an `INFO` reply (section headers and blank lines skipped). */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/**
 * A key's shape, for counting what kinds of keys a gateway wrote: a `:`-separated segment that looks
 * like a token (16+ base64url characters: sealed ids) becomes `*`, and so do UUIDs, hex runs of 8+
 * characters and digit runs anywhere, e.g. `switchyard:session:QPBfq…` → `switchyard:session:*`.
 */
export function keyShape(key: string): string {
  return key
    .split(':')
    .map((segment) => (/^[A-Za-z0-9_-]{16,}$/.test(segment) ? '*' : segment))
    .join(':')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '*')
    .replace(/[0-9a-f]{8,}/gi, '*')
    .replace(/\d+/g, '*');
}

/** Commands this probe's own `redisCounters()` call adds to `total_commands_processed`. */
export const PROBE_COMMANDS = 2;

/**
 * Redis's running counters: `total_commands_processed` since it started (each probe's own two `INFO`s
 * count too), and `connected_clients` now (this probe's connection included).
 */
export async function redisCounters(url: string) {
  const [stats, clients] = await withRedis(url, (redis) =>
    Promise.all([redis.info('stats'), redis.info('clients')]),
  );
  return {
    commands: Number(parseInfo(stats).total_commands_processed),
    clients: Number(parseInfo(clients).connected_clients),
  };
}

/** What Redis holds at one moment. */
export interface RedisSnapshot {
  /** `INFO memory` `used_memory`: bytes allocated by Redis (data, overhead, client buffers). */
  usedMemory: number;
  /** `DBSIZE`: keys in the current database. */
  keys: number;
  /** Keys by shape (`keyShape`), from a full `SCAN`. */
  keyShapes: Record<string, number>;
  /** `MEMORY USAGE` of every key, summed: the bytes the keys and their values take (Redis's estimate). */
  keyBytes: number;
  /** Clients connected, the probe's own connection not counted (the gateways' store connections). */
  clients: number;
}

/** `INFO memory`, `DBSIZE`, `INFO clients`, a `SCAN` of every key and the `MEMORY USAGE` of each. */
export function redisSnapshot(url: string): Promise<RedisSnapshot> {
  return withRedis(url, async (redis) => {
    const [info, keys, clients] = await Promise.all([
      redis.info('memory'),
      redis.dbsize(),
      redis.info('clients'),
    ]);
    const usedMemory = Number(parseInfo(info).used_memory);
    if (!Number.isFinite(usedMemory)) throw new Error(`redis ${url}: INFO memory has no used_memory`);
    const names: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
      names.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    const keyShapes: Record<string, number> = {};
    for (const key of names) keyShapes[keyShape(key)] = (keyShapes[keyShape(key)] ?? 0) + 1;
    // SAMPLES 0: every element of a hash, set or list counted, not an estimate from 5 of them.
    const usages = await Promise.all(names.map((k) => redis.memory('USAGE', k, 'SAMPLES', 0)));
    const keyBytes = usages.reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
    const connected = Number(parseInfo(clients).connected_clients) - 1;
    return { usedMemory, keys, keyShapes, keyBytes, clients: connected };
  });
}

/**
 * A snapshot once the keys stopped moving: a gateway may write a record just after it answered, so this
 * reads until two snapshots `intervalMs` apart agree on the key count and their bytes (at most `timeoutMs`).
 */
export async function settledSnapshot(
  url: string,
  intervalMs = 50,
  timeoutMs = 2_000,
): Promise<RedisSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let last = await redisSnapshot(url);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const now = await redisSnapshot(url);
    if (now.keys === last.keys && now.keyBytes === last.keyBytes) return now;
    last = now;
  }
  return last;
}
