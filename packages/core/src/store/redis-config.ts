import type { UnavailablePolicy } from './store.js';

/** `store.redis` in the config (DESIGN §12). Kept apart from the driver, so reading it loads no ioredis. */
export interface RedisStoreConfig {
  url: string;
  /** Put before every key and channel (default `switchyard:`): several gateways can share one Redis. */
  keyPrefix?: string;
  onUnavailable?: UnavailablePolicy;
  /** How long one command may take before it counts as unanswered (default 1000 ms). */
  commandTimeoutMs?: number;
}

export const DEFAULT_KEY_PREFIX = 'switchyard:';
