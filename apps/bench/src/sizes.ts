/** The sizes of every benchmark: the full run, and the small `--quick` run of the CI smoke test. */
import type { CatalogConfig } from './catalog/index.js';
import type { CredentialsConfig } from './credentials/index.js';
import type { ReadConfig, ToolCallConfig } from './direct-vs-gateway.js';
import type { EnumerateConfig } from './enumerate.js';
import type { PathsConfig } from './paths/index.js';
import type { PluginsConfig } from './plugins/index.js';
import type { LevelConfig } from './read-paths.js';
import type { ReplicasConfig } from './replicas/index.js';
import type { SessionMemoryConfig } from './session-memory/index.js';

export interface Sizes {
  read: ReadConfig;
  /** Resource enumeration scenarios, in order: CPU-bound upstreams (no latency), then I/O-bound. */
  enumerate: EnumerateConfig[];
  plugins: PluginsConfig;
  tools: { call: ToolCallConfig; list: EnumerateConfig[] };
  replicas: ReplicasConfig;
  paths: PathsConfig;
  sessionMemory: SessionMemoryConfig;
  catalog: CatalogConfig;
  credentials: CredentialsConfig;
}

/** The matrix of section 6 without its sizes: every transport, both eras, both methods, c=1 and c=16. */
const PATHS_MATRIX = {
  upstreams: ['stdio', 'http-legacy', 'http-modern', 'ws'],
  eras: ['legacy', 'modern'],
  methods: ['read', 'call'],
  concurrencies: [1, 16],
  resources: 100,
  payloadBytes: 1024,
  tools: 5,
  argumentBytes: 64,
} as const;

/** Warm-up and timed reads per round at c=1 and at c=16. */
function readLevels(c1: [number, number], c16: [number, number]): LevelConfig[] {
  return [
    { concurrency: 1, warmup: c1[0], reads: c1[1] },
    { concurrency: 16, warmup: c16[0], reads: c16[1] },
  ];
}

export const FULL: Sizes = {
  read: { resources: 100, payloadBytes: 1024, warmup: 500, reads: 5000, concurrencies: [1, 16], rounds: 3 },
  enumerate: [
    { list: 'resources', upstreams: 10, itemsPerUpstream: 5000, pageSize: 100, latencyMs: 0, runs: 3 },
    { list: 'resources', upstreams: 10, itemsPerUpstream: 5000, pageSize: 100, latencyMs: 5, runs: 3 },
  ],
  plugins: {
    hit: {
      resources: 100,
      payloadBytes: 1024,
      latencyMs: 5,
      levels: readLevels([50, 600], [200, 3000]),
      rounds: 3,
    },
    stack: {
      resources: 200,
      payloadBytes: 1024,
      cacheMaxBytes: 50 * 1024,
      levels: readLevels([100, 1000], [200, 2000]),
      rounds: 3,
    },
    // Five paths, five rounds: with the order rotated each round, every path goes first once.
    governance: {
      sizes: [
        { resultBytes: 1024, warmup: 100, calls: 600 },
        { resultBytes: 1024 * 1024, warmup: 5, calls: 24 },
      ],
      rounds: 5,
    },
  },
  tools: {
    call: { tools: 5, argumentBytes: 64, warmup: 500, calls: 5000, concurrencies: [1, 16], rounds: 3 },
    list: [
      { list: 'tools', upstreams: 10, itemsPerUpstream: 500, pageSize: 50, latencyMs: 0, runs: 5 },
      { list: 'tools', upstreams: 10, itemsPerUpstream: 500, pageSize: 50, latencyMs: 5, runs: 5 },
    ],
  },
  replicas: {
    resources: 100,
    payloadBytes: 1024,
    cacheUpstreamLatencyMs: 5,
    levels: readLevels([100, 1000], [200, 3000]),
    rounds: 3,
    sessions: 200,
  },
  paths: { ...PATHS_MATRIX, warmup: 1000, count: 1000, rounds: 3, sessions: 1000, profileRequests: 5000 },
  sessionMemory: { sessions: 1000, warmup: 100 },
  catalog: {
    tokenSizes: [50, 300, 3000],
    scaleSizes: [3000, 30000],
    buildRuns: 5,
    warmup: 200,
    searches: 2000,
    limit: 5,
  },
  credentials: {
    keeper: {
      rounds: 3,
      concurrencies: [1, 16],
      calls: { memory: { warmup: 2000, calls: 10000 }, redis: { warmup: 500, calls: 3000 } },
    },
    e2e: {
      tools: 5,
      argumentBytes: 64,
      prewarm: 300,
      rounds: 5,
      levels: [
        { concurrency: 1, warmup: 30, calls: 200 },
        { concurrency: 16, warmup: 64, calls: 500 },
      ],
    },
  },
};

/** The CI smoke run: the full run's shape with small counts (every section, every path, every check). */
export const QUICK: Sizes = {
  read: { ...FULL.read, warmup: 50, reads: 300 },
  enumerate: FULL.enumerate.map((e) => ({
    ...e,
    upstreams: 2,
    itemsPerUpstream: 1000,
    latencyMs: e.latencyMs && 3,
  })),
  plugins: {
    hit: { ...FULL.plugins.hit, levels: readLevels([5, 40], [32, 192]) },
    stack: { ...FULL.plugins.stack, levels: readLevels([10, 100], [32, 192]) },
    governance: {
      sizes: [
        { resultBytes: 1024, warmup: 10, calls: 100 },
        { resultBytes: 1024 * 1024, warmup: 1, calls: 5 },
      ],
      rounds: 2,
    },
  },
  tools: {
    call: { ...FULL.tools.call, warmup: 30, calls: 200 },
    list: FULL.tools.list.map((e) => ({
      ...e,
      upstreams: 2,
      itemsPerUpstream: 200,
      latencyMs: e.latencyMs && 3,
      runs: 3,
    })),
  },
  replicas: {
    ...FULL.replicas,
    resources: 20,
    levels: readLevels([5, 40], [32, 128]),
    rounds: 2,
    sessions: 20,
  },
  paths: { ...FULL.paths, warmup: 10, count: 50, rounds: 1, sessions: 30, profileRequests: 300 },
  sessionMemory: { sessions: 200, warmup: 20 },
  // Every part of the catalog once, at 3,000 tools only.
  catalog: { ...FULL.catalog, scaleSizes: [3000], buildRuns: 1, warmup: 50, searches: 300 },
  credentials: {
    keeper: {
      ...FULL.credentials.keeper,
      rounds: 1,
      calls: { memory: { warmup: 200, calls: 2000 }, redis: { warmup: 100, calls: 500 } },
    },
    e2e: {
      ...FULL.credentials.e2e,
      prewarm: 50,
      rounds: 1,
      levels: [
        { concurrency: 1, warmup: 20, calls: 100 },
        { concurrency: 16, warmup: 32, calls: 300 },
      ],
    },
  },
};
