/**
 * The sizes of every benchmark, written once: each count as `n(full, quick)`, the full run's and the small
 * `--quick` run's (the CI smoke test: the full run's shape, every section, path and check, small counts).
 */
import type { ListName } from './lists.js';
import { CLIENT_ERAS, PATH_METHODS, UPSTREAM_KINDS } from './paths/matrix.js';

/** Every section's config, as `sizes()` gives it (each section's `…Config` type is a part of it). */
export type Sizes = ReturnType<typeof sizes>;

export function sizes(quick: boolean) {
  const n = (full: number, small: number): number => (quick ? small : full);
  /** Warm-up and timed reads per round at c=1 and at c=16. */
  const levels = (c1: [number, number], c16: [number, number]) => [
    { concurrency: 1, warmup: c1[0], reads: c1[1] },
    { concurrency: 16, warmup: c16[0], reads: c16[1] },
  ];
  /** The CPU-bound (0 ms) then the I/O-bound scenario of one list. */
  const enumeration = (list: ListName, items: number, pageSize: number, runs: number) =>
    [0, n(5, 3)].map((latencyMs) => ({
      list,
      upstreams: n(10, 2),
      itemsPerUpstream: items,
      pageSize,
      /** Delay of every upstream before answering each page (testkit `--latency-ms`); 0 = CPU-bound. */
      latencyMs,
      runs,
    }));
  return {
    read: {
      resources: 100,
      payloadBytes: 1024,
      warmup: n(500, 50),
      reads: n(5000, 300),
      concurrencies: [1, 16],
      rounds: 3,
    },
    enumerate: enumeration('resources', n(5000, 1000), 100, 3),
    plugins: {
      hit: {
        resources: 100,
        payloadBytes: 1024,
        latencyMs: 5,
        levels: quick ? levels([5, 40], [32, 192]) : levels([50, 600], [200, 3000]),
        rounds: 3,
      },
      stack: {
        resources: 200,
        payloadBytes: 1024,
        /** Far less than resources × payload: every read round-robin is an LRU miss. */
        cacheMaxBytes: 50 * 1024,
        levels: quick ? levels([10, 100], [32, 192]) : levels([100, 1000], [200, 2000]),
        rounds: 3,
      },
      // Five paths, five rounds: with the order rotated each round, every path goes first once.
      governance: {
        sizes: [
          // resultBytes: the echo's result to aim for (the argument text is about half of it).
          { resultBytes: 1024, warmup: n(100, 10), calls: n(600, 100) },
          { resultBytes: 1024 * 1024, warmup: n(5, 1), calls: n(24, 5) },
        ],
        rounds: n(5, 2),
      },
    },
    tools: {
      call: {
        tools: 5,
        argumentBytes: 64,
        warmup: n(500, 30),
        calls: n(5000, 200),
        concurrencies: [1, 16],
        rounds: 3,
      },
      list: enumeration('tools', n(500, 200), 50, n(5, 3)),
    },
    replicas: {
      resources: n(100, 20),
      payloadBytes: 1024,
      /** 5a/5c: the upstream answers each read after this long (misses are visible; hits never wait). */
      cacheUpstreamLatencyMs: 5,
      levels: quick ? levels([5, 40], [32, 128]) : levels([100, 1000], [200, 3000]),
      rounds: n(3, 2),
      /** 5d: legacy sessions opened against one gateway with `store.redis`. */
      sessions: n(200, 20),
    },
    paths: {
      upstreams: [...UPSTREAM_KINDS],
      eras: [...CLIENT_ERAS],
      methods: [...PATH_METHODS],
      concurrencies: [1, 16],
      resources: 100,
      payloadBytes: 1024,
      tools: 5,
      argumentBytes: 64,
      warmup: n(1000, 10),
      count: n(1000, 50),
      rounds: n(3, 1),
      /** 6b: idle legacy sessions (0: skipped); `--cpu-prof`: requests per profiled path after `warmup`. */
      sessions: n(1000, 30),
      profileRequests: n(5000, 300),
    },
    sessionMemory: { sessions: n(1000, 200), warmup: n(100, 20) },
    // Every part of the catalog once in the quick run, at 3,000 tools only.
    catalog: {
      /** Catalog sizes of the token comparison, then of the build and latency measurement. */
      tokenSizes: [50, 300, 3000],
      scaleSizes: quick ? [3000] : [3000, 30000],
      buildRuns: n(5, 1),
      warmup: n(200, 50),
      searches: n(2000, 300),
      /** `limit` of every measured search (DESIGN §13's default). */
      limit: 5,
    },
    credentials: {
      keeper: {
        rounds: n(3, 1),
        concurrencies: [1, 16],
        /** Warm-up and timed calls per round, per store (a Redis round trip costs ~10× a memory read). */
        calls: {
          memory: { warmup: n(2000, 200), calls: n(10000, 2000) },
          redis: { warmup: n(500, 100), calls: n(3000, 500) },
        },
      },
      e2e: {
        tools: 5,
        argumentBytes: 64,
        /** Calls of each path (4 at a time) before the first round: JIT, connections, the person's session. */
        prewarm: n(300, 50),
        rounds: n(5, 1),
        levels: [
          { concurrency: 1, warmup: n(30, 20), calls: n(200, 100) },
          { concurrency: 16, warmup: n(64, 32), calls: n(500, 300) },
        ],
      },
    },
  };
}
