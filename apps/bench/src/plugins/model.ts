import type { HitCeiling, ReadPathLevel } from '../read-paths.js';
import type { PluginEntry } from '../services.js';
import type { Sizes } from '../sizes.js';
import type { GovernanceResult } from './governance.js';

export type CacheHitConfig = Sizes['plugins']['hit'];

export type StackConfig = Sizes['plugins']['stack'];

export type PluginsConfig = Sizes['plugins'];

export type StackPath = 'bare' | 'stack' | 'stack-incoherent';

export interface CacheHitResult {
  config: CacheHitConfig;
  plugins: PluginEntry[];
  /** Upstream reads while warming (one read of every URI through the gateway): must be `resources`. */
  warmUpstreamReads: number;
  levels: ReadPathLevel[];
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
  levels: ReadPathLevel[];
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
