import type { Logger } from '../logger.js';
import { MemoryStore } from './memory.js';
import type { RedisStoreConfig } from './redis-config.js';
import type { Store } from './store.js';

/** The `store` section of the config (DESIGN §12): absent means in memory. */
export interface StoreConfig {
  redis?: RedisStoreConfig;
}

/**
 * Opens the store the config names. The Redis driver (and ioredis) is imported only when `store.redis`
 * is configured. An unreachable Redis does not fail the start: the store reports itself unavailable
 * and keeps reconnecting. With `secret` (the gateway's `cursorSecret`) what replicas publish to each other
 * is signed, and a message no replica signed is dropped.
 */
export async function openStore(
  config: StoreConfig | undefined,
  logger: Logger,
  secret?: string,
): Promise<Store> {
  if (!config?.redis) return new MemoryStore();
  const { RedisStore } = await import('./redis.js');
  const store = new RedisStore(config.redis, logger, secret);
  await store.connect();
  return store;
}
