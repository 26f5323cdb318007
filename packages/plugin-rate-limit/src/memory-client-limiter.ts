import type { ClientLimiter, ClientVerdict } from './client-limiter.js';
import type { ResolvedClientLimits } from './options.js';
import { TokenBuckets } from './token-buckets.js';

/**
 * Per-replica budgets: one token bucket per identity in this process's memory (`TokenBuckets`),
 * answered synchronously. Used when the gateway's store is not shared.
 */
export class MemoryClientLimiter implements ClientLimiter {
  readonly #buckets: TokenBuckets;

  constructor(limits: ResolvedClientLimits) {
    this.#buckets = new TokenBuckets(limits);
  }

  consume(identity: string): ClientVerdict {
    return this.#buckets.take(identity);
  }

  close(): void {
    this.#buckets.clear();
  }
}
