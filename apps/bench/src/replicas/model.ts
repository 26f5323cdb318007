/** The replicas benchmark's sizes and results (section 5; the JSON's `replicas`). */
import type { ReadPathLevel } from '../read-paths.js';
import type { PluginEntry } from '../services.js';
import type { Sizes } from '../sizes.js';
import type { RedisSnapshot } from './redis-probe.js';

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
export interface SharedCacheResult {
  plugins: PluginEntry[];
  paths: PathInfo[];
  /** Upstream reads while reading every URI once directly on replica A (cold): `resources` expected. */
  warmReadsA: number;
  /**
   * Upstream reads while then reading every URI once directly on replica B: 0 when B's reads were
   * served from the cache A filled (shared through the store), `resources` when each replica has its own.
   */
  secondReplicaUpstreamReads: number;
  /** Upstream reads while warming the no-store gateway (`resources` expected). */
  warmReadsSolo: number;
  /** Upstream reads of a second pass over every URI on every gateway (0 expected: all hits). */
  rehitUpstreamReads: number;
  legacy: LegacyProbe;
  /** Clients connected to Redis once warmed, the bench's probe not counted: the replicas' store connections. */
  redisClients: number;
  levels: ReadPathLevel[];
  gatewayWarnings: Record<string, Record<string, number>>;
}

/** 5b: the rate limiter's per-request cost, in memory vs on Redis, on cache-less reads. */
export interface RateLimitResult {
  plugins: PluginEntry[];
  paths: PathInfo[];
  /** Clients connected to Redis once the gateways listed their resources (the store gateway's connections). */
  redisClients: number;
  levels: ReadPathLevel[];
  gatewayWarnings: Record<string, Record<string, number>>;
}

/** 5d: what legacy sessions (and one subscription each) leave in Redis. */
export interface SessionMemoryResult {
  sessions: number;
  /** Redis before any session, after opening them all, after one subscription each, after closing them. */
  before: RedisSnapshot;
  opened: RedisSnapshot;
  subscribed: RedisSnapshot;
  closed: RedisSnapshot;
  /** (opened − before) ÷ sessions: `MEMORY USAGE` bytes of the keys, `used_memory` bytes and keys per session. */
  keyBytesPerSession: number;
  bytesPerSession: number;
  keysPerSession: number;
  /** (subscribed − opened) ÷ sessions, the same three. */
  keyBytesPerSubscription: number;
  bytesPerSubscription: number;
  keysPerSubscription: number;
  /** Subscriptions that succeeded, and the first failure (the gateway may refuse). */
  subscriptionsOk: number;
  subscribeError?: string;
  /** HTTP statuses of the `DELETE`s that closed the sessions. */
  closeStatuses: Record<string, number>;
  gatewayWarnings: Record<string, number>;
}

/** The section's result: skipped (with why) or the four parts (each missing if it failed half-way). */
export interface ReplicasResult {
  config: ReplicasConfig;
  skipped?: string;
  sharedCache?: SharedCacheResult;
  rateLimit?: RateLimitResult;
  sessionMemory?: SessionMemoryResult;
}
