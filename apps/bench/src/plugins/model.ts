import type { Sizes } from '../sizes.js';
import type { runCacheHitBenchmark } from './cache-hit.js';
import type { GovernanceResult } from './governance.js';
import type { checkAudit, runStackBenchmark } from './stack.js';

export type CacheHitConfig = Sizes['plugins']['hit'];

export type StackConfig = Sizes['plugins']['stack'];

export type PluginsConfig = Sizes['plugins'];

export type StackPath = 'bare' | 'stack' | 'stack-incoherent';

export type CacheHitResult = Awaited<ReturnType<typeof runCacheHitBenchmark>>;

export type AuditCheck = Awaited<ReturnType<typeof checkAudit>>;

export type StackResult = Awaited<ReturnType<typeof runStackBenchmark>>;

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
