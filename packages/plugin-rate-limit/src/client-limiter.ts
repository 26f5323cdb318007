import type { TakeResult } from './token-buckets.js';

/**
 * The verdict on one request of one identity: admitted; refused with how long until it would be
 * admitted (`rate_limited`); or refused because the shared store does not answer and the gateway is
 * configured to refuse then (`store_unavailable`, with what went wrong).
 */
export type ClientVerdict = TakeResult | { ok: false; unavailable: string };

/**
 * Charges one request to an identity's budget. Two implementations, chosen once at setup: per-replica
 * token buckets in memory (`MemoryClientLimiter`, answering synchronously), and one budget shared by
 * every replica through Redis (`SharedClientLimiter`).
 */
export interface ClientLimiter {
  /** Charges one request to `identity`; never rejects. */
  consume(identity: string): ClientVerdict | Promise<ClientVerdict>;
  /** Lets go of what the limiter holds (its buckets, its listeners); shared state is left to expire. */
  close(): void;
}
