import type { Run } from '../rounds.js';
import type { PluginEntry } from '../services.js';
import type { GovernanceConfig, GovernanceResult } from './governance.js';

/** One concurrency level: warm-up reads, then timed reads, per round and path. */
export interface PluginLevelConfig {
  concurrency: number;
  warmup: number;
  reads: number;
}

export interface CacheHitConfig {
  resources: number;
  payloadBytes: number;
  /** Upstream delay before answering each read (testkit `--latency-ms`). */
  latencyMs: number;
  levels: PluginLevelConfig[];
  rounds: number;
}

export interface StackConfig {
  /** More resources than the cache can hold, read round-robin: every read is an LRU miss. */
  resources: number;
  payloadBytes: number;
  /** The stack's cache `maxBytes` (a small fraction of resources × payload). */
  cacheMaxBytes: number;
  levels: PluginLevelConfig[];
  rounds: number;
}

export interface PluginsConfig {
  hit: CacheHitConfig;
  stack: StackConfig;
  governance: GovernanceConfig;
}

export type HitPath = 'direct' | 'cache';
export type StackPath = 'bare' | 'stack' | 'stack-incoherent';

export interface PluginRun extends Run {
  /** Reads issued in the round (warm-up + timed) and the upstream's `resources/read` count over it. */
  readsIssued: number;
  upstreamReads: number;
  /** Upstream `resources/subscribe` / `unsubscribe` calls over the round. */
  upstreamSubscribes: number;
  upstreamUnsubscribes: number;
  /** Resident set size of the gateway after the round (MiB; Linux only). */
  gatewayRssMiB?: number;
}

/** A path's median round against the baseline's: throughput ratio and added latency (path − baseline). */
export interface Comparison {
  path: string;
  baseline: string;
  throughputRatio: number;
  addedP50Ms: number;
  addedP99Ms: number;
}

export interface PluginLevel {
  concurrency: number;
  /** The median round (by req/s) of each path. */
  medians: Record<string, PluginRun>;
  comparisons: Comparison[];
  rounds: PluginRun[];
}

/**
 * The most hits per second this box can serve at one concurrency, whatever the latency: every hit costs
 * the bench client and the gateway CPU time (median round), and `cores` cores give at most
 * `cores × 1e6 ÷ (client + gateway µs)` reads per second. `ratio` = that ÷ the direct path's req/s.
 */
export interface HitCeiling {
  concurrency: number;
  cores: number;
  clientUs: number;
  gatewayUs: number;
  rps: number;
  ratio: number;
}

export interface CacheHitResult {
  config: CacheHitConfig;
  plugins: PluginEntry[];
  /** Upstream reads while warming (one read of every URI through the gateway): must be `resources`. */
  warmUpstreamReads: number;
  levels: PluginLevel[];
  /** Per level, when the CPU times are known (Linux). */
  ceilings: HitCeiling[];
  gatewayWarnings: Record<string, number>;
}

export interface AuditCheck {
  path: StackPath;
  file: string;
  /** Reads issued through that gateway (all rounds, warm-ups included). */
  readsIssued: number;
  /** `resources/read` records in its audit file, and their cache status / outcome. */
  readRecords: number;
  cacheStatus: Record<string, number>;
  errors: number;
  /** Records of other methods (initialize-time listing etc.). */
  otherRecords: number;
}

export interface StackResult {
  config: StackConfig;
  /** Approximate size of one cache entry (JSON of a read result) and how many fit in `cacheMaxBytes`. */
  entryBytes: number;
  cacheCapacityEntries: number;
  plugins: Record<StackPath, PluginEntry[]>;
  levels: PluginLevel[];
  audit: AuditCheck[];
  /** Net upstream subscriptions still held after every round (only the coherent cache subscribes). */
  upstreamSubscriptionsHeld: number;
  gatewayWarnings: Record<StackPath, Record<string, number>>;
}

/** Every part (any may be missing from the JSON of a run that failed half-way or ran one section). */
export interface PluginsResult {
  hit?: CacheHitResult;
  stack?: StackResult;
  governance?: GovernanceResult;
}

/** Subdirectories of the `--cpu-prof` directory, one per gateway of this benchmark. */
export const PLUGIN_PROFILE_DIRS = [
  'cache-hit',
  'bare',
  'stack',
  'stack-incoherent',
  'governance-bare',
  'governance-secrets',
  'governance-pin',
  'governance-approve',
  'governance-access',
] as const;

/** Short labels of the stack benchmark's paths (table rows). */
export const STACK_LABELS: Record<StackPath, string> = {
  bare: 'bare gateway',
  stack: 'stack, coherent',
  'stack-incoherent': 'stack, coherent: false',
};
