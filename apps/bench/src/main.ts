/**
 * Switchyard benchmark harness (`pnpm bench`): what the gateway costs compared with talking to the
 * upstream directly, on the same box, over the same transport (MCP Streamable HTTP, loopback).
 *
 * 1. Read: one testkit upstream in its own process (100 resources, ~1 KiB each) and the gateway CLI in its
 *    own process fronting it. From this process, one client session per path issues `resources/read`
 *    (warm-up, then N timed reads with hrtime) at concurrency 1 (pure per-request latency) and 16
 *    (throughput: 16 workers over one client session). Direct and gateway rounds are interleaved (ABBA…)
 *    and the median round is reported, because on a 2-core box the client, gateway and upstream share the
 *    CPUs and a single round is noisy. Reported: req/s, p50, p99, gateway/direct throughput ratio and the
 *    added p50/p99 (gateway − direct). This is the per-request tax of the extra hop.
 * 2. Enumeration: K upstreams × N resources with page size P. The slowest single upstream enumerated alone
 *    (explicit cursors, raw requests) is the lower bound a perfectly parallel merge could reach; the
 *    gateway's merged listing fetches the next page of every upstream per downstream page, so it should
 *    take N/P round trips and stay close to that bound. Every gateway walk is checked: exactly K×N
 *    resources, all URIs unique (the bench fails loudly otherwise). A reference row walks all K upstreams
 *    directly and concurrently from the client, i.e. the same total work without the gateway.
 *    It runs twice: (a) CPU-bound upstreams (no latency), where K local upstreams on a small box are
 *    bounded by their summed CPU, not by the gateway; (b) I/O-bound upstreams (every page answered after a
 *    fixed latency, like remote servers), which measures the design property (round trips = the longest
 *    upstream's pages, fan-out concurrent).
 * 3. Plugins (plugins.ts): (a) cache hits through a gateway running `@switchyard/plugin-cache` vs reads
 *    straight from an upstream that takes 5 ms per read (the upstream's own read counter must not move
 *    during a gateway round, or the bench fails); (b) the cost of the full stack (audit → rate-limit →
 *    access → cache) on cache misses vs a bare gateway, with the cache coherent (default) and not, every
 *    read checked to be a miss (upstream counter and audit log).
 * 4. Targets (read throughput ≥ 0.9× direct, added p99 ≤ 1 ms, enumeration ≤ 1.2× slowest single, on both
 *    enumeration scenarios, cache hit ≥ 5× direct) are printed next to the results, with the CPU floor
 *    that explains a CPU-bound miss; timing never changes the exit code (only errors and wrong counts do).
 *
 * Output: a table on stdout, progress on stderr, JSON in apps/bench/results/latest.json (or --json PATH).
 * Every child process is registered and killed on exit, error or SIGINT (see procs.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunOptions } from './client.js';
import {
  type EnumerateConfig,
  type EnumerateResult,
  runEnumerateBenchmark,
  scenarioOf,
} from './enumerate.js';
import {
  PLUGIN_PROFILE_DIRS,
  type PluginsConfig,
  type PluginsResult,
  runCacheHitBenchmark,
  runStackBenchmark,
} from './plugins.js';
import { childCrashed, isInterrupted, stopAll } from './procs.js';
import { type ProfileSummary, renderProfile, summarizeProfiles } from './profile.js';
import { type ReadConfig, type ReadResult, runReadBenchmark } from './read.js';
import { type Environment, evaluateTargets, renderTable } from './report.js';
import { msSince } from './stats.js';

const USAGE = `usage: node apps/bench/dist/main.js [--quick] [--json PATH] [--only read|enumerate|plugins]
                                     [--cpu-prof DIR] [--stock-fetch] [--client sdk|raw]

  --quick          small sizes for a CI smoke run (300 reads, 2 upstreams × 1,000 resources, 3 ms latency,
                   a few hundred reads per plugin path)
  --json PATH      where to write the JSON results (default apps/bench/results/latest.json)
  --only WHAT      run only the read, the enumerate or the plugins benchmark
  --cpu-prof DIR   run the gateway(s) under node --cpu-prof, writing .cpuprofile files to DIR
  --stock-fetch    bench client uses the SDK transport's fetch unchanged (see client.ts)
  --client WHICH   sdk (default): the official SDK client; raw: a lean JSON-RPC client (raw-client.ts) on every
                   path, so results show the servers' cost rather than the client's`;

type Sizes = { read: ReadConfig; enumerate: EnumerateConfig[]; plugins: PluginsConfig };

/** Enumeration scenarios, in order: CPU-bound upstreams (no latency), then I/O-bound (latency per page). */
const FULL: Sizes = {
  read: { resources: 100, payloadBytes: 1024, warmup: 500, reads: 5000, concurrencies: [1, 16], rounds: 3 },
  enumerate: [
    { upstreams: 10, resourcesPerUpstream: 5000, pageSize: 100, latencyMs: 0, runs: 3 },
    { upstreams: 10, resourcesPerUpstream: 5000, pageSize: 100, latencyMs: 5, runs: 3 },
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
  },
};

const QUICK: Sizes = {
  read: { resources: 100, payloadBytes: 1024, warmup: 50, reads: 300, concurrencies: [1, 16], rounds: 3 },
  enumerate: [
    { upstreams: 2, resourcesPerUpstream: 1000, pageSize: 100, latencyMs: 0, runs: 3 },
    { upstreams: 2, resourcesPerUpstream: 1000, pageSize: 100, latencyMs: 3, runs: 3 },
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
  },
};

const ONLY = ['read', 'enumerate', 'plugins'] as const;

const DEFAULT_JSON = resolve(dirname(fileURLToPath(import.meta.url)), '../results/latest.json');

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function environment(): Environment {
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    loadavg: loadavg(),
  };
}

/** Each benchmark's gateway profiles go to their own subdirectory of --cpu-prof DIR. */
function profiled(options: RunOptions, what: string): RunOptions {
  return options.cpuProfDir ? { ...options, cpuProfDir: join(options.cpuProfDir, what) } : options;
}

async function writeJson(path: string, data: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(data, null, 2)}\n`, 'utf8');
}

async function main(): Promise<number> {
  let args: {
    quick?: boolean;
    json?: string;
    only?: string;
    'cpu-prof'?: string;
    'stock-fetch'?: boolean;
    client?: string;
    help?: boolean;
  };
  try {
    args = parseArgs({
      options: {
        quick: { type: 'boolean' },
        json: { type: 'string' },
        only: { type: 'string' },
        'cpu-prof': { type: 'string' },
        'stock-fetch': { type: 'boolean' },
        client: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
    if (args.client !== undefined && args.client !== 'sdk' && args.client !== 'raw') {
      throw new Error(`--client must be sdk or raw, got '${args.client}'`);
    }
    if (args.only !== undefined && !(ONLY as readonly string[]).includes(args.only)) {
      throw new Error(`--only must be read, enumerate or plugins, got '${args.only}'`);
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  const mode = args.quick ? 'quick' : 'full';
  const sizes = args.quick ? QUICK : FULL;
  const jsonPath = resolve(args.json ?? DEFAULT_JSON);
  const cpuProfDir = args['cpu-prof'] === undefined ? undefined : resolve(args['cpu-prof']);
  if (cpuProfDir) await mkdir(cpuProfDir, { recursive: true });
  const options: RunOptions = {
    cpuProfDir,
    stockFetch: args['stock-fetch'] === true,
    rawClient: args.client === 'raw',
  };
  const clientFetch = options.rawClient
    ? 'raw: lean JSON-RPC over Streamable HTTP on node:http, no result validation (--client raw)'
    : options.stockFetch
      ? 'stock'
      : 'POSTs without the shared transport AbortSignal';
  const env = environment();
  const startedAt = new Date().toISOString();
  const start = process.hrtime.bigint();
  log(`${mode} run, node ${env.node}, ${env.cpus} CPU(s)`);

  const runs = (what: (typeof ONLY)[number]): boolean => args.only === undefined || args.only === what;
  let read: ReadResult | undefined;
  const enumerate: EnumerateResult[] = [];
  let plugins: PluginsResult | undefined;
  try {
    if (runs('read')) {
      read = await Promise.race([runReadBenchmark(sizes.read, log, profiled(options, 'read')), childCrashed]);
    }
    if (runs('enumerate')) {
      for (const config of sizes.enumerate) {
        const what = `enumerate-${scenarioOf(config)}`;
        enumerate.push(
          await Promise.race([runEnumerateBenchmark(config, log, profiled(options, what)), childCrashed]),
        );
      }
    }
    if (runs('plugins')) {
      plugins = {};
      const pluginOptions = profiled(options, 'plugins');
      plugins.hit = await Promise.race([
        runCacheHitBenchmark(sizes.plugins.hit, log, pluginOptions),
        childCrashed,
      ]);
      plugins.stack = await Promise.race([
        runStackBenchmark(sizes.plugins.stack, log, pluginOptions),
        childCrashed,
      ]);
    }
  } catch (error) {
    if (isInterrupted()) {
      await stopAll();
      return 130;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`FAILED: ${message}`);
    await stopAll();
    await writeJson(jsonPath, {
      ok: false,
      mode,
      startedAt,
      durationMs: msSince(start),
      env,
      clientFetch,
      error: error instanceof Error ? error.message : String(error),
      read,
      enumerate,
      plugins,
    }).catch(() => undefined);
    return 1;
  } finally {
    await stopAll();
  }

  const durationMs = msSince(start);
  const targets = evaluateTargets(read, enumerate, plugins);
  // Profiles are written when the gateways exit, i.e. after stopAll().
  const profiles: Record<string, ProfileSummary[]> = {};
  if (cpuProfDir) {
    const enumerated = sizes.enumerate.map((config) => `enumerate-${scenarioOf(config)}`);
    const pluginDirs = PLUGIN_PROFILE_DIRS.map((gateway) => join('plugins', gateway));
    for (const what of [...(read ? ['read'] : []), ...(enumerate.length > 0 ? enumerated : [])])
      profiles[what] = await summarizeProfiles(join(cpuProfDir, what));
    if (plugins) {
      for (const what of pluginDirs) profiles[what] = await summarizeProfiles(join(cpuProfDir, what));
    }
  }
  await writeJson(jsonPath, {
    ok: true,
    mode,
    startedAt,
    durationMs,
    env,
    clientFetch,
    read,
    enumerate,
    plugins,
    targets,
    cpuProfDir,
    profiles: cpuProfDir ? profiles : undefined,
  });
  process.stdout.write(
    `${renderTable({ mode, env, startedAt, durationMs, read, enumerate, plugins, targets, jsonPath, clientFetch })}\n`,
  );
  for (const [what, summaries] of Object.entries(profiles)) {
    for (const summary of summaries) {
      process.stdout.write(`\n${renderProfile(`Gateway CPU profile (${what} benchmark)`, summary)}\n`);
    }
  }
  return 0;
}

// Exit explicitly: idle keep-alive sockets must not hold the process open (stdout is synchronous for
// files, pipes and TTYs on Linux, so nothing printed is lost).
main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await stopAll();
    process.exit(1);
  },
);
