/**
 * Plugins benchmark: what the first-party plugins buy and cost, over Streamable HTTP, against testkit
 * upstreams in their own processes, with interleaved rounds and the median round reported (as read.ts).
 *
 * a. Cache hit vs direct: an upstream that answers every read after a fixed latency (testkit
 *    `--latency-ms`, like a remote server), read directly and through a gateway whose only plugin is
 *    `@switchyard/plugin-cache` (defaults). The cache is warmed (every URI read once through the gateway)
 *    before timing, and every gateway round is checked against the upstream's own request counter
 *    (testkit control API, `GET /control/stats`): the upstream must serve no `resources/read` at all
 *    during a gateway round, or the bench fails.
 * b. The full stack on a miss: a 0 ms upstream, a bare gateway (no plugins) vs gateways with audit →
 *    rate-limit → access → cache (outermost first), once with the cache's defaults (coherent) and once
 *    with `coherent: false`. The limits are far above the load and the one deny rule matches nothing, so
 *    nothing is refused; the cache holds far fewer entries than there are resources and every path reads
 *    round-robin (continuing where its last loop stopped), so its LRU never hits. Every round is checked
 *    against the upstream's counter (one upstream read per read issued), and at the end the audit files
 *    must hold one `resources/read` record per read issued, each with cache status `miss`.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { controlClient, type TestServerStats } from '@switchyard/testkit';
import { type BenchClient, closeAll, connectClient, REQUEST_OPTIONS, type RunOptions } from './client.js';
import {
  type Gateway,
  type GatewayOptions,
  type PluginEntry,
  rssMiB,
  startGateway,
  startUpstream,
  type Upstream,
} from './procs.js';
import { checkedUris, readLoop } from './read.js';
import { type CpuPerRead, cpuSampler } from './rounds.js';
import { type LatencySummary, medianBy, summarize } from './stats.js';

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
}

export type HitPath = 'direct' | 'cache';
export type StackPath = 'bare' | 'stack' | 'stack-incoherent';

export interface PluginRun extends LatencySummary {
  path: string;
  round: number;
  concurrency: number;
  wallMs: number;
  rps: number;
  cpuUsPerRead: CpuPerRead;
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

/** Both parts (either may be missing from the JSON of a run that failed half-way). */
export interface PluginsResult {
  hit?: CacheHitResult;
  stack?: StackResult;
}

/** Subdirectories of the `--cpu-prof` directory, one per gateway of this benchmark. */
export const PLUGIN_PROFILE_DIRS = ['cache-hit', 'bare', 'stack', 'stack-incoherent'] as const;

/** Short labels of the stack benchmark's paths (table rows). */
export const STACK_LABELS: Record<StackPath, string> = {
  bare: 'bare gateway',
  stack: 'stack, coherent',
  'stack-incoherent': 'stack, coherent: false',
};

/** A measured path: a client, its URIs and how many upstream reads each read must cause. */
interface Target {
  path: string;
  client: Client;
  uris: string[];
  gateway?: Gateway;
  /** Upstream `resources/read` calls per read issued: 0 = every read is a cache hit, 1 = every read reaches it. */
  upstreamReadsPerRead: 0 | 1;
  /** Round-robin position, carried across loops so that a path's reads cycle through all its URIs. */
  next: number;
}

async function upstreamCounters(
  stats: () => Promise<TestServerStats>,
): Promise<{ reads: number; subscribes: number; unsubscribes: number; held: number }> {
  const s = await stats();
  let held = 0;
  for (const n of Object.values(s.subscribed)) held += Math.max(0, n);
  return {
    reads: s.requests['resources/read'] ?? 0,
    subscribes: s.subscribeCalls,
    unsubscribes: s.unsubscribeCalls,
    held,
  };
}

function statsOf(upstream: Upstream): () => Promise<TestServerStats> {
  if (!upstream.controlUrl) {
    throw new Error(`upstream ${upstream.name} printed no controlUrl: cannot count its reads`);
  }
  const control = controlClient(upstream.controlUrl);
  return () => control.stats();
}

/** `uris` starting at `from` (wrapping), so a loop continues the round-robin where the last one stopped. */
function rotated(uris: readonly string[], from: number): string[] {
  const k = from % uris.length;
  return [...uris.slice(k), ...uris.slice(0, k)];
}

/** Runs `count` reads on a target, continuing its round-robin. */
async function loop(target: Target, count: number, concurrency: number, minBytes: number) {
  const uris = rotated(target.uris, target.next);
  target.next = (target.next + count) % target.uris.length;
  return readLoop(target.client, uris, count, concurrency, minBytes);
}

/**
 * Interleaved rounds over every level: in round r the paths run in the order of `targets` rotated by
 * r (A B C, B C A, C A B…; A B, B A for two), so each path goes first equally often. Every round is
 * checked against the upstream's read counter.
 */
async function measure(options: {
  what: string;
  targets: Target[];
  levels: PluginLevelConfig[];
  rounds: number;
  payloadBytes: number;
  upstream: Upstream;
  log: (message: string) => void;
}): Promise<PluginRun[][]> {
  const { targets, upstream, log } = options;
  const stats = statsOf(upstream);
  const byLevel: PluginRun[][] = [];
  for (const level of options.levels) {
    const runs: PluginRun[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const k = round % targets.length;
      for (const target of [...targets.slice(k), ...targets.slice(0, k)]) {
        const before = await upstreamCounters(stats);
        await loop(target, level.warmup, level.concurrency, options.payloadBytes);
        const cpu = cpuSampler(upstream.proc, target.gateway?.proc)();
        const { latencies, wallMs } = await loop(
          target,
          level.reads,
          level.concurrency,
          options.payloadBytes,
        );
        const cpuUsPerRead = cpu(level.reads);
        const after = await upstreamCounters(stats);
        const readsIssued = level.warmup + level.reads;
        const run: PluginRun = {
          path: target.path,
          round,
          concurrency: level.concurrency,
          wallMs,
          rps: (level.reads / wallMs) * 1000,
          cpuUsPerRead,
          readsIssued,
          upstreamReads: after.reads - before.reads,
          upstreamSubscribes: after.subscribes - before.subscribes,
          upstreamUnsubscribes: after.unsubscribes - before.unsubscribes,
          gatewayRssMiB: target.gateway && rssMiB(target.gateway.proc),
          ...summarize(latencies),
        };
        runs.push(run);
        log(
          `${options.what} c=${level.concurrency} round ${round + 1}/${options.rounds} ${target.path.padEnd(16)} ` +
            `${run.rps.toFixed(0)} req/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms, ` +
            `upstream reads ${run.upstreamReads}/${readsIssued}`,
        );
        const expected = target.upstreamReadsPerRead * readsIssued;
        if (run.upstreamReads !== expected) {
          throw new Error(
            target.upstreamReadsPerRead === 0
              ? `${options.what}: the cache is not hitting: the upstream served ${run.upstreamReads} ` +
                  `resources/read during ${readsIssued} reads through the ${target.path} gateway ` +
                  `(c=${level.concurrency}, round ${round + 1}); expected 0 after warming`
              : `${options.what}: ${target.path} c=${level.concurrency} round ${round + 1}: the upstream ` +
                  `served ${run.upstreamReads} resources/read for ${readsIssued} reads issued; expected ` +
                  `exactly ${expected} (every read a miss)`,
          );
        }
      }
    }
    byLevel.push(runs);
  }
  return byLevel;
}

/** The median round of each path and every path compared with `baseline`. */
function summarizeLevel(concurrency: number, runs: PluginRun[], baseline: string): PluginLevel {
  const medians: Record<string, PluginRun> = {};
  for (const path of new Set(runs.map((r) => r.path))) {
    medians[path] = medianBy(
      runs.filter((r) => r.path === path),
      (r) => r.rps,
    );
  }
  const base = medians[baseline]!;
  const comparisons = Object.values(medians)
    .filter((m) => m.path !== baseline)
    .map((m) => ({
      path: m.path,
      baseline,
      throughputRatio: m.rps / base.rps,
      addedP50Ms: m.p50 - base.p50,
      addedP99Ms: m.p99 - base.p99,
    }));
  return { concurrency, medians, comparisons, rounds: runs };
}

function hitCeiling(level: PluginLevel): HitCeiling | undefined {
  const hit = level.medians.cache;
  const direct = level.medians.direct;
  const gatewayUs = hit?.cpuUsPerRead.gateway;
  if (!hit || !direct || gatewayUs === undefined) return undefined;
  const cores = availableParallelism();
  const rps = (cores * 1e6) / (hit.cpuUsPerRead.client + gatewayUs);
  return {
    concurrency: level.concurrency,
    cores,
    clientUs: hit.cpuUsPerRead.client,
    gatewayUs,
    rps,
    ratio: rps / direct.rps,
  };
}

function profiledAs(options: RunOptions, name: string, plugins: PluginEntry[]): GatewayOptions {
  return {
    plugins,
    name: `gateway (${name})`,
    cpuProfDir: options.cpuProfDir && join(options.cpuProfDir, name),
  };
}

/** a. Cache hits through the gateway vs reads straight from a slow upstream. */
export async function runCacheHitBenchmark(
  config: CacheHitConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<CacheHitResult> {
  let upstream: Upstream | undefined;
  let gateway: Gateway | undefined;
  const clients: BenchClient[] = [];
  const plugins: PluginEntry[] = [['@switchyard/plugin-cache', {}]];
  try {
    upstream = await startUpstream({
      name: 'a',
      resources: config.resources,
      payloadBytes: config.payloadBytes,
      latencyMs: config.latencyMs,
    });
    gateway = await startGateway([upstream], profiledAs(options, 'cache-hit', plugins));
    log(
      `plugins/cache-hit: upstream ${upstream.url} (${config.latencyMs} ms per read), gateway ${gateway.url}`,
    );
    const direct = await connectClient(upstream.url, 'bench-direct', options);
    clients.push(direct);
    const viaGateway = await connectClient(gateway.url, 'bench-cache', options);
    clients.push(viaGateway);
    const { directUris, gatewayUris } = await checkedUris(
      direct.client,
      viaGateway.client,
      upstream.name,
      config.resources,
    );

    // Warm: every URI once through the gateway (each a miss), then once more (each must be a hit).
    const stats = statsOf(upstream);
    const before = await upstreamCounters(stats);
    await readLoop(viaGateway.client, gatewayUris, gatewayUris.length, 1, config.payloadBytes);
    const warmed = await upstreamCounters(stats);
    const warmUpstreamReads = warmed.reads - before.reads;
    if (warmUpstreamReads !== config.resources) {
      throw new Error(
        `plugins/cache-hit: warming read ${config.resources} URIs once through the cache, but the upstream ` +
          `served ${warmUpstreamReads} resources/read (expected ${config.resources})`,
      );
    }
    await readLoop(viaGateway.client, gatewayUris, gatewayUris.length, 1, config.payloadBytes);
    const rehit = (await upstreamCounters(stats)).reads - warmed.reads;
    if (rehit !== 0) {
      throw new Error(
        `plugins/cache-hit: the cache is not hitting: re-reading the ${config.resources} warmed URIs ` +
          `made the upstream serve ${rehit} resources/read (expected 0)`,
      );
    }
    log(
      `plugins/cache-hit: warmed ${config.resources} URIs (${warmUpstreamReads} upstream reads, ` +
        `${warmed.subscribes - before.subscribes} subscriptions); a second pass was all hits`,
    );

    const targets: Target[] = [
      { path: 'direct', client: direct.client, uris: directUris, upstreamReadsPerRead: 1, next: 0 },
      {
        path: 'cache',
        client: viaGateway.client,
        uris: gatewayUris,
        gateway,
        upstreamReadsPerRead: 0,
        next: 0,
      },
    ];
    const byLevel = await measure({
      what: 'plugins/cache-hit',
      targets,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream,
      log,
    });
    const levels = byLevel.map((runs, i) => summarizeLevel(config.levels[i]!.concurrency, runs, 'direct'));
    return {
      config,
      plugins,
      warmUpstreamReads,
      levels,
      ceilings: levels.flatMap((level) => hitCeiling(level) ?? []),
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await upstream?.proc.stop();
  }
}

const AUDIT_FILE = 'audit.jsonl';

/**
 * The four plugins in the documented order (audit outermost, cache innermost: access refuses a cache
 * listed before it). Limits far above the load, one deny rule that matches nothing read.
 */
function stackPlugins(upstream: string, cacheMaxBytes: number, coherent: boolean): PluginEntry[] {
  return [
    ['@switchyard/plugin-audit', { file: `./${AUDIT_FILE}`, fsync: 'interval' }],
    [
      '@switchyard/plugin-rate-limit',
      {
        perClient: { requestsPerSecond: 1_000_000, burst: 1_000_000 },
        perUpstream: { concurrency: 1024, maxQueue: 1024 },
      },
    ],
    [
      '@switchyard/plugin-access',
      {
        default: 'allow',
        rules: [
          {
            effect: 'deny',
            uris: [`${upstream}+test://${upstream}/never/**`],
            description: 'matches nothing the bench reads',
          },
        ],
      },
    ],
    [
      '@switchyard/plugin-cache',
      coherent ? { maxBytes: cacheMaxBytes } : { maxBytes: cacheMaxBytes, coherent: false },
    ],
  ];
}

/** Counts the `resources/read` records of an audit file by cache status (JSON Lines, one per request). */
async function checkAudit(path: StackPath, file: string, readsIssued: number): Promise<AuditCheck> {
  const text = await readFile(file, 'utf8');
  const check: AuditCheck = {
    path,
    file,
    readsIssued,
    readRecords: 0,
    cacheStatus: {},
    errors: 0,
    otherRecords: 0,
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const record = JSON.parse(line) as { method?: string; outcome?: string; cache?: string };
    if (record.method !== 'resources/read') {
      check.otherRecords += 1;
      continue;
    }
    check.readRecords += 1;
    const status = record.cache ?? '(none)';
    check.cacheStatus[status] = (check.cacheStatus[status] ?? 0) + 1;
    if (record.outcome !== 'ok') check.errors += 1;
  }
  return check;
}

/** b. The four-plugin stack on cache misses vs a bare gateway, both in front of a 0 ms upstream. */
export async function runStackBenchmark(
  config: StackConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<StackResult> {
  let upstream: Upstream | undefined;
  const gateways: Partial<Record<StackPath, Gateway>> = {};
  const clients: BenchClient[] = [];
  try {
    upstream = await startUpstream({
      name: 'a',
      resources: config.resources,
      payloadBytes: config.payloadBytes,
    });
    const up = upstream;
    const plugins: Record<StackPath, PluginEntry[]> = {
      bare: [],
      stack: stackPlugins(up.name, config.cacheMaxBytes, true),
      'stack-incoherent': stackPlugins(up.name, config.cacheMaxBytes, false),
    };
    const paths = Object.keys(plugins) as StackPath[];
    const started = await Promise.allSettled(
      paths.map((path) => startGateway([up], profiledAs(options, path, plugins[path]))),
    );
    for (const [i, s] of started.entries()) if (s.status === 'fulfilled') gateways[paths[i]!] = s.value;
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    log(
      `plugins/stack: upstream ${up.url}, gateways ${paths.map((p) => `${p} ${gateways[p]!.url}`).join(', ')}`,
    );

    const direct = await connectClient(up.url, 'bench-direct', options);
    clients.push(direct);
    const targets: Target[] = [];
    for (const path of paths) {
      const client = await connectClient(gateways[path]!.url, `bench-${path}`, options);
      clients.push(client);
      const { gatewayUris } = await checkedUris(direct.client, client.client, up.name, config.resources);
      targets.push({
        path,
        client: client.client,
        uris: gatewayUris,
        gateway: gateways[path],
        upstreamReadsPerRead: 1,
        next: 0,
      });
    }
    // How many entries the cache can hold: its size is the JSON of the result.
    const sample = await direct.client.request(
      { method: 'resources/read', params: { uri: targets[0]!.uris[0]!.replace(/^[^+]*\+/, '') } },
      REQUEST_OPTIONS,
    );
    const entryBytes = Buffer.byteLength(JSON.stringify(sample)) + `${up.name}+`.length;
    const cacheCapacityEntries = Math.floor(config.cacheMaxBytes / entryBytes);
    const maxConcurrency = Math.max(...config.levels.map((l) => l.concurrency));
    if (cacheCapacityEntries + maxConcurrency >= config.resources) {
      throw new Error(
        `plugins/stack: ${config.resources} resources do not exceed the cache's ~${cacheCapacityEntries} ` +
          `entries by more than the concurrency (${maxConcurrency}): reads could hit`,
      );
    }
    log(
      `plugins/stack: cache maxBytes ${config.cacheMaxBytes} ≈ ${cacheCapacityEntries} entries of ` +
        `${entryBytes} B, ${config.resources} resources read round-robin: every read misses`,
    );

    const byLevel = await measure({
      what: 'plugins/stack',
      targets,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream: up,
      log,
    });

    // Every read must be in the audit log, as a miss (records are written before the response leaves).
    const audit: AuditCheck[] = [];
    for (const path of ['stack', 'stack-incoherent'] as const) {
      const readsIssued = byLevel.flat().reduce((n, r) => (r.path === path ? n + r.readsIssued : n), 0);
      const check = await checkAudit(path, join(gateways[path]!.dir, AUDIT_FILE), readsIssued);
      audit.push(check);
      if (check.readRecords !== readsIssued || check.cacheStatus.miss !== readsIssued || check.errors > 0) {
        throw new Error(
          `plugins/stack: the ${path} gateway's audit log has ${check.readRecords} resources/read records ` +
            `(cache status ${JSON.stringify(check.cacheStatus)}, ${check.errors} errors) for ` +
            `${readsIssued} reads issued; expected one 'miss' record per read`,
        );
      }
    }
    const held = (await upstreamCounters(statsOf(up))).held;
    return {
      config,
      entryBytes,
      cacheCapacityEntries,
      plugins,
      levels: byLevel.map((runs, i) => summarizeLevel(config.levels[i]!.concurrency, runs, 'bare')),
      audit,
      upstreamSubscriptionsHeld: held,
      gatewayWarnings: Object.fromEntries(
        paths.map((p) => [p, Object.fromEntries(gateways[p]!.proc.warnings)]),
      ) as Record<StackPath, Record<string, number>>,
    };
  } finally {
    await closeAll(clients);
    await Promise.allSettled(Object.values(gateways).map((g) => g.proc.stop()));
    await upstream?.proc.stop();
  }
}
