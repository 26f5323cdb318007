/** The sizes of every benchmark: the full run, and the small `--quick` run of the CI smoke test. */
import type { CatalogConfig } from './catalog/index.js';
import type { CredentialsConfig } from './credentials/index.js';
import type { ReadConfig, ToolCallConfig } from './direct-vs-gateway.js';
import type { EnumerateConfig } from './enumerate.js';
import type { PathsConfig } from './paths/index.js';
import type { PluginsConfig } from './plugins/index.js';
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
      levels: [
        { concurrency: 1, warmup: 50, reads: 600 },
        { concurrency: 16, warmup: 200, reads: 3000 },
      ],
      rounds: 3,
    },
    stack: {
      resources: 200,
      payloadBytes: 1024,
      cacheMaxBytes: 50 * 1024,
      levels: [
        { concurrency: 1, warmup: 100, reads: 1000 },
        { concurrency: 16, warmup: 200, reads: 2000 },
      ],
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
    levels: [
      { concurrency: 1, warmup: 100, reads: 1000 },
      { concurrency: 16, warmup: 200, reads: 3000 },
    ],
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

export const QUICK: Sizes = {
  read: { resources: 100, payloadBytes: 1024, warmup: 50, reads: 300, concurrencies: [1, 16], rounds: 3 },
  enumerate: [
    { list: 'resources', upstreams: 2, itemsPerUpstream: 1000, pageSize: 100, latencyMs: 0, runs: 3 },
    { list: 'resources', upstreams: 2, itemsPerUpstream: 1000, pageSize: 100, latencyMs: 3, runs: 3 },
  ],
  plugins: {
    hit: {
      resources: 100,
      payloadBytes: 1024,
      latencyMs: 5,
      levels: [
        { concurrency: 1, warmup: 5, reads: 40 },
        { concurrency: 16, warmup: 32, reads: 192 },
      ],
      rounds: 3,
    },
    stack: {
      resources: 200,
      payloadBytes: 1024,
      cacheMaxBytes: 50 * 1024,
      levels: [
        { concurrency: 1, warmup: 10, reads: 100 },
        { concurrency: 16, warmup: 32, reads: 192 },
      ],
      rounds: 3,
    },
    governance: {
      sizes: [
        { resultBytes: 1024, warmup: 10, calls: 100 },
        { resultBytes: 1024 * 1024, warmup: 1, calls: 5 },
      ],
      rounds: 2,
    },
  },
  tools: {
    call: { tools: 5, argumentBytes: 64, warmup: 30, calls: 200, concurrencies: [1, 16], rounds: 3 },
    list: [
      { list: 'tools', upstreams: 2, itemsPerUpstream: 200, pageSize: 50, latencyMs: 0, runs: 3 },
      { list: 'tools', upstreams: 2, itemsPerUpstream: 200, pageSize: 50, latencyMs: 3, runs: 3 },
    ],
  },
  replicas: {
    resources: 20,
    payloadBytes: 1024,
    cacheUpstreamLatencyMs: 5,
    levels: [
      { concurrency: 1, warmup: 5, reads: 40 },
      { concurrency: 16, warmup: 32, reads: 128 },
    ],
    rounds: 2,
    sessions: 20,
  },
  paths: { ...PATHS_MATRIX, warmup: 10, count: 50, rounds: 1, sessions: 30, profileRequests: 300 },
  sessionMemory: { sessions: 200, warmup: 20 },
  // Every part of the catalog once, at 3,000 tools only.
  catalog: {
    tokenSizes: [50, 300, 3000],
    scaleSizes: [3000],
    buildRuns: 1,
    warmup: 50,
    searches: 300,
    limit: 5,
  },
  credentials: {
    keeper: {
      rounds: 1,
      concurrencies: [1, 16],
      calls: { memory: { warmup: 200, calls: 2000 }, redis: { warmup: 100, calls: 500 } },
    },
    e2e: {
      tools: 5,
      argumentBytes: 64,
      prewarm: 50,
      rounds: 1,
      levels: [
        { concurrency: 1, warmup: 20, calls: 100 },
        { concurrency: 16, warmup: 32, calls: 300 },
      ],
    },
  },
};
