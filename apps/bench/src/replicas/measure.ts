/**
 * The replicas benchmark's rounds: several paths (a gateway, or a balancer in front of replicas) read
 * the same URIs with the sessionless modern client, rounds interleaved (in round r the paths run in
 * their order rotated by r), the median round (by req/s) of each path kept, and named pairs compared.
 * Every round records the upstream's `resources/read` count and the CPU of every process involved.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { RequestClient } from '@switchyard/testkit/mcp';
import { cpuTimeMs, type ManagedProcess, type RedisServer } from '@switchyard/testkit/process';
import { rotated, statsOf, upstreamCounters } from '../plugins/measure.js';
import type { Comparison, PluginLevelConfig } from '../plugins/model.js';
import { readLoop } from '../read.js';
import type { Upstream } from '../services.js';
import { medianBy, summarize } from '../stats.js';
import type { ReplicaCpu, ReplicaLevel, ReplicaRun } from './model.js';
import { PROBE_COMMANDS, redisCounters } from './redis-probe.js';

/** A measured path: its client, the URIs it reads and the processes that serve it. */
export interface ReplicaPath {
  path: string;
  client: RequestClient;
  uris: string[];
  /** The gateway processes behind this path (their CPU is summed). */
  gateways: ManagedProcess[];
  /** HAProxy, when the path goes through one. */
  balancer?: ManagedProcess;
  /** Round-robin position, carried across loops. */
  next: number;
}

/** Runs `count` checked reads on a path at `concurrency`, continuing its round-robin over its URIs. */
export function readPath(path: ReplicaPath, count: number, concurrency: number, minBytes: number) {
  const uris = rotated(path.uris, path.next);
  path.next = (path.next + count) % path.uris.length;
  // Structurally the part of Client readLoop uses (`request`), as the raw client in client.ts.
  return readLoop(path.client as unknown as Client, uris, count, concurrency, minBytes);
}

/** CPU time (ms) of some processes, summed; undefined when one of them cannot be read. */
function cpuOf(procs: readonly ManagedProcess[]): number | undefined {
  let total = 0;
  for (const proc of procs) {
    const ms = cpuTimeMs(proc.pid);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}

/** Samples this process's and the children's CPU; the returned function gives µs per request since. */
function sampleCpu(path: ReplicaPath, upstream: ManagedProcess, redis: ManagedProcess | undefined) {
  const client = process.cpuUsage();
  const groups = {
    upstream: [upstream],
    gateway: path.gateways,
    balancer: path.balancer ? [path.balancer] : undefined,
    redis: redis ? [redis] : undefined,
  };
  const before = Object.fromEntries(
    Object.entries(groups).map(([k, procs]) => [k, procs && cpuOf(procs)]),
  ) as Record<keyof typeof groups, number | undefined>;
  return (requests: number): ReplicaCpu => {
    const c = process.cpuUsage(client);
    const per = (key: keyof typeof groups): number | undefined => {
      const procs = groups[key];
      const start = before[key];
      const end = procs && cpuOf(procs);
      return start === undefined || end === undefined ? undefined : ((end - start) * 1000) / requests;
    };
    return {
      client: (c.user + c.system) / requests,
      upstream: per('upstream'),
      gateway: per('gateway'),
      balancer: per('balancer'),
      redis: per('redis'),
    };
  };
}

/**
 * Interleaved rounds of every path at every level; returns the runs of each level. Reads are checked
 * (readLoop); upstream read counts are recorded, not asserted (they show whether the cache is shared).
 */
export async function measurePaths(options: {
  what: string;
  paths: ReplicaPath[];
  levels: PluginLevelConfig[];
  rounds: number;
  payloadBytes: number;
  upstream: Upstream;
  /** The part's redis-server: its CPU and commands per request are recorded. */
  redis?: RedisServer;
  log: (message: string) => void;
}): Promise<ReplicaRun[][]> {
  const { paths, log } = options;
  const stats = statsOf(options.upstream);
  const byLevel: ReplicaRun[][] = [];
  for (const level of options.levels) {
    const runs: ReplicaRun[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const k = round % paths.length;
      for (const path of [...paths.slice(k), ...paths.slice(0, k)]) {
        const before = (await upstreamCounters(stats)).reads;
        await readPath(path, level.warmup, level.concurrency, options.payloadBytes);
        const commandsBefore = options.redis && (await redisCounters(options.redis.url)).commands;
        const cpu = sampleCpu(path, options.upstream.proc, options.redis?.proc);
        const { latencies, wallMs } = await readPath(
          path,
          level.reads,
          level.concurrency,
          options.payloadBytes,
        );
        const cpuUsPerRead = cpu(level.reads);
        const commandsAfter = options.redis && (await redisCounters(options.redis.url)).commands;
        const readsIssued = level.warmup + level.reads;
        const run: ReplicaRun = {
          path: path.path,
          round,
          concurrency: level.concurrency,
          wallMs,
          rps: (level.reads / wallMs) * 1000,
          cpuUsPerRead,
          readsIssued,
          upstreamReads: (await upstreamCounters(stats)).reads - before,
          redisCommandsPerRead:
            commandsBefore === undefined || commandsAfter === undefined
              ? undefined
              : (commandsAfter - commandsBefore - PROBE_COMMANDS) / level.reads,
          ...summarize(latencies),
        };
        runs.push(run);
        log(
          `${options.what} c=${level.concurrency} round ${round + 1}/${options.rounds} ${path.path.padEnd(8)} ` +
            `${run.rps.toFixed(0)} req/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms, ` +
            `upstream reads ${run.upstreamReads}/${readsIssued}` +
            (run.redisCommandsPerRead === undefined
              ? ''
              : `, redis ${run.redisCommandsPerRead.toFixed(2)} cmd/read`),
        );
      }
    }
    byLevel.push(runs);
  }
  return byLevel;
}

/** The median round of each path at one level, and each `[path, baseline]` pair compared (when both ran). */
export function compareLevel(
  concurrency: number,
  runs: ReplicaRun[],
  pairs: readonly (readonly [path: string, baseline: string])[],
): ReplicaLevel {
  const medians: Record<string, ReplicaRun> = {};
  for (const path of new Set(runs.map((r) => r.path))) {
    medians[path] = medianBy(
      runs.filter((r) => r.path === path),
      (r) => r.rps,
    );
  }
  const ran = pairs.filter(([path, baseline]) => medians[path] && medians[baseline]);
  const comparisons: Comparison[] = ran.map(([path, baseline]) => {
    const m = medians[path]!;
    const base = medians[baseline]!;
    return {
      path,
      baseline,
      throughputRatio: m.rps / base.rps,
      addedP50Ms: m.p50 - base.p50,
      addedP99Ms: m.p99 - base.p99,
    };
  });
  return { concurrency, medians, comparisons, rounds: runs };
}
