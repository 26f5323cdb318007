import type { Sizes } from '../sizes.js';
import type { runRateLimitBenchmark } from './rate-limit.js';
import type { runSessionMemoryBenchmark } from './session-memory.js';
import type { runSharedCacheBenchmark } from './shared-cache.js';

export type ReplicasConfig = Sizes['replicas'];

/** One measured path as the report shows it. */
export interface PathInfo {
  path: string;
  label: string;
}

/** A probe of legacy sessions through two replicas: open one through the balancer, then read on it. */
export interface LegacyProbe {
  /** Requests attempted on the session (after opening it). */
  reads: number;
  ok: number;
  /** Whether `initialize` + `notifications/initialized` (two POSTs: one per replica) succeeded. */
  opened: boolean;
  /** The first failure's message, if any. */
  firstError?: string;
}

/** 5a + 5c: shared cache through one vs two replicas, and the cost of the balancer and the store. */
export type SharedCacheResult = Awaited<ReturnType<typeof runSharedCacheBenchmark>>;

/** 5b: the rate limiter's per-request cost, in memory vs on Redis, on cache-less reads. */
export type RateLimitResult = Awaited<ReturnType<typeof runRateLimitBenchmark>>;

/** 5d: what legacy sessions (and one subscription each) leave in Redis. */
export type SessionMemoryResult = Awaited<ReturnType<typeof runSessionMemoryBenchmark>>;

/** The section's result: skipped (with why) or the four parts (each missing if it failed half-way). */
export interface ReplicasResult {
  config: ReplicasConfig;
  skipped?: string;
  sharedCache?: SharedCacheResult;
  rateLimit?: RateLimitResult;
  sessionMemory?: SessionMemoryResult;
}
