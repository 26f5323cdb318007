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
 * and keeps reconnecting.
 */
export async function openStore(config: StoreConfig | undefined, logger: Logger): Promise<Store> {
  if (!config?.redis) return new MemoryStore();
  const { RedisStore } = await import('./redis.js');
  const store = new RedisStore(config.redis, logger);
  await store.connect();
  return store;
}
