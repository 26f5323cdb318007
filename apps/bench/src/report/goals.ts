/** The stated goals (informational: missing one never changes the exit code). */

/** Gateway-vs-direct throughput goal of reads (every level) and tool calls (c=16). */
export const THROUGHPUT_TARGET = 0.9;

/** Enumeration goal, on every scenario: gateway ≤ this × the slowest single upstream alone. */
export const ENUMERATION_TARGET = 1.2;

/** Enumeration goal (issue 18): gateway ≤ this × listing the K upstreams directly, one after another. */
export const ENUMERATION_SEQUENTIAL_TARGET = 0.5;

/** Cache goal (issue requirement): cache hits through the gateway ≥ this × direct reads of a 5 ms upstream. */
export const CACHE_HIT_TARGET = 5;

/** Tool search goals (issue 27): search mode's tool list vs the full one at 300 tools, recall, latency at 3,000. */
export const CATALOG_GOALS = {
  tokensSavedAt: 300,
  tokensSavedPercent: 90,
  recallAt5: 0.9,
  recallAt1: 0.7,
  latencyAt: 3000,
  p50Ms: 1,
} as const;
