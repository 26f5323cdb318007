/**
 * The read-path sections' rounds (plugins 3a/3b, replicas 5a–5c): several paths (a client straight to the
 * upstream, a gateway, or a balancer in front of replicas) read their URIs round-robin, rounds interleaved
 * (rounds.ts, the paths in their order rotated each round), the median round (by req/s) of each path kept
 * and named pairs compared. Every round records the upstream's `resources/read` and subscribe counts, the
 * CPU of every process involved and, with Redis, its commands per read; a path that states how many
 * upstream reads each read must cause is checked against the counter (the bench fails otherwise).
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { controlClient, type TestServerStats } from '@switchyard/testkit';
import { type ManagedProcess, type RedisServer, rssMiB } from '@switchyard/testkit/process';
import type { RunOptions } from './client.js';
import { PROBE_COMMANDS, redisCounters } from './replicas/redis-probe.js';
import { type Requester, readLoop } from './requests.js';
import { measureCompared, type Pair } from './rounds.js';
import type { GatewayOptions, PluginEntry, Upstream } from './services.js';
import type { Sizes } from './sizes.js';

export type LevelConfig = Sizes['replicas']['levels'][number];

/** A measured path: its client, the URIs it reads and the processes that serve it. */
export interface ReadPath {
  path: string;
  client: Requester;
  uris: string[];
  /** The gateway processes behind this path (their CPU is summed); absent on a direct path. */
  gateways?: ManagedProcess[];
  /** HAProxy, when the path goes through one. */
  balancer?: ManagedProcess;
  /** When set, checked every round: 0 = every read is a cache hit, 1 = every read reaches the upstream. */
  upstreamReadsPerRead?: 0 | 1;
  /** Round-robin position, carried across loops so that a path's reads cycle through all its URIs. */
  next: number;
}

/**
 * One level of the read paths: the median round of each, the pairs compared, every round. A round adds
 * to `Run` the reads issued (warm-up + timed) and the upstream's `resources/read`, subscribe and unsubscribe
 * counts over it, the RSS of a one-gateway path after it (MiB, Linux) and, with Redis, the commands per
 * timed read (the probes excluded); `cpuUsPerRead` also has `balancer` (HAProxy) and `redis`.
 */
export type ReadPathLevel = Awaited<ReturnType<typeof measureReadPaths>>[number];
export type ReadPathRun = ReadPathLevel['rounds'][number];

export async function upstreamCounters(
  stats: () => Promise<TestServerStats>,
): Promise<{ reads: number; calls: number; subscribes: number; unsubscribes: number; held: number }> {
  const s = await stats();
  let held = 0;
  for (const n of Object.values(s.subscribed)) held += Math.max(0, n);
  return {
    reads: s.requests['resources/read'] ?? 0,
    calls: s.requests['tools/call'] ?? 0,
    subscribes: s.subscribeCalls,
    unsubscribes: s.unsubscribeCalls,
    held,
  };
}

export function statsOf(upstream: Upstream): () => Promise<TestServerStats> {
  if (!upstream.controlUrl) {
    throw new Error(`upstream ${upstream.name} printed no controlUrl: cannot count its requests`);
  }
  const control = controlClient(upstream.controlUrl);
  return () => control.stats();
}

/** Runs `count` checked reads on a path at `concurrency`, continuing its round-robin over its URIs. */
export function readPath(path: ReadPath, count: number, concurrency: number, minBytes: number) {
  const k = path.next % path.uris.length;
  const uris = [...path.uris.slice(k), ...path.uris.slice(0, k)];
  path.next = (path.next + count) % path.uris.length;
  return readLoop(path.client, uris, count, concurrency, minBytes);
}

/**
 * Interleaved rounds (rounds.ts) of every path at every level, rotated each round; returns each level's
 * median rounds with the `pairs` (`[path, baseline]`, when both ran) compared.
 */
export async function measureReadPaths(options: {
  what: string;
  paths: ReadPath[];
  levels: LevelConfig[];
  rounds: number;
  payloadBytes: number;
  upstream: Upstream;
  pairs: readonly Pair[];
  /** The part's redis-server: its CPU and commands per read are recorded. */
  redis?: RedisServer;
  log: (message: string) => void;
}) {
  const { paths, redis, what } = options;
  const stats = statsOf(options.upstream);
  const commands = async () => redis && (await redisCounters(redis.url)).commands;
  const levels = await measureCompared({
    plan: {
      what,
      levels: options.levels.map((l) => ({ concurrency: l.concurrency, warmup: l.warmup, count: l.reads })),
      rounds: options.rounds,
    },
    log: options.log,
    pairs: options.pairs,
    variants: paths.map((path) => ({
      name: path.path,
      loop: (count, concurrency) => readPath(path, count, concurrency, options.payloadBytes),
      cpu: {
        upstream: options.upstream.proc,
        gateway: path.gateways,
        balancer: path.balancer,
        redis: redis?.proc,
      },
    })),
    before: () => upstreamCounters(stats),
    beforeTimed: commands,
    after: async (run, before, readsIssued, commandsBefore) => {
      const path = paths.find((p) => p.path === run.path)!;
      const commandsAfter = await commands();
      const after = await upstreamCounters(stats);
      const upstreamReads = after.reads - before.reads;
      const expected = path.upstreamReadsPerRead;
      if (expected !== undefined && upstreamReads !== expected * readsIssued) {
        throw new Error(
          expected === 0
            ? `${what}: the cache is not hitting: the upstream served ${upstreamReads} resources/read during ` +
                `${readsIssued} reads through the ${path.path} gateway (c=${run.concurrency}, round ` +
                `${run.round + 1}); expected 0 after warming`
            : `${what}: ${path.path} c=${run.concurrency} round ${run.round + 1}: the upstream served ` +
                `${upstreamReads} resources/read for ${readsIssued} reads issued; expected exactly ` +
                `${readsIssued} (every read a miss)`,
        );
      }
      const gateway = path.gateways?.length === 1 ? path.gateways[0] : undefined;
      return {
        readsIssued,
        upstreamReads,
        upstreamSubscribes: after.subscribes - before.subscribes,
        upstreamUnsubscribes: after.unsubscribes - before.unsubscribes,
        gatewayRssMiB: gateway && rssMiB(gateway.pid),
        redisCommandsPerRead:
          commandsBefore === undefined || commandsAfter === undefined
            ? undefined
            : (commandsAfter - commandsBefore - PROBE_COMMANDS) / run.count,
      };
    },
    note: (run) =>
      `, upstream reads ${run.upstreamReads}/${run.readsIssued}` +
      (run.redisCommandsPerRead === undefined
        ? ''
        : `, redis ${run.redisCommandsPerRead.toFixed(2)} cmd/read`),
  });
  return levels;
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

export function hitCeiling(level: ReadPathLevel): HitCeiling | undefined {
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

/** A gateway's options with the plugins and, under `--cpu-prof`, its own profile subdirectory. */
export function profiledAs(options: RunOptions, name: string, plugins: PluginEntry[]): GatewayOptions {
  return {
    plugins,
    name: `gateway (${name})`,
    cpuProfDir: options.cpuProfDir && join(options.cpuProfDir, name),
  };
}
