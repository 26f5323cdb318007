/**
 * The replicas benchmark's rounds: several paths (a gateway, or a balancer in front of replicas) read
 * the same URIs with the sessionless modern client, rounds interleaved (in round r the paths run in
 * their order rotated by r), the median round (by req/s) of each path kept, and named pairs compared.
 * Every round records the upstream's `resources/read` count and the CPU of every process involved.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { RequestClient } from '@switchyard/testkit/mcp';
import type { ManagedProcess, RedisServer } from '@switchyard/testkit/process';
import { rotated, statsOf, upstreamCounters } from '../plugins/measure.js';
import type { Comparison, PluginLevelConfig } from '../plugins/model.js';
import { readLoop } from '../read.js';
import { compared, measureRounds, mediansOf } from '../rounds.js';
import type { Upstream } from '../services.js';
import type { ReplicaLevel, ReplicaRun } from './model.js';
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

/**
 * Interleaved rounds (rounds.ts) of every path at every level, rotated each round; returns the runs of
 * each level. Reads are checked (readLoop); upstream read counts are recorded, not asserted (they show
 * whether the cache is shared).
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
  const { paths, redis } = options;
  const stats = statsOf(options.upstream);
  const commands = async () => redis && (await redisCounters(redis.url)).commands;
  const byLevel: ReplicaRun[][] = [];
  for (const level of options.levels) {
    const [runs] = await measureRounds({
      plan: {
        what: options.what,
        warmup: level.warmup,
        count: level.reads,
        concurrencies: [level.concurrency],
        rounds: options.rounds,
      },
      log: options.log,
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
      before: async () => (await upstreamCounters(stats)).reads,
      beforeTimed: commands,
      after: async (_run, readsBefore, readsIssued, commandsBefore) => {
        const commandsAfter = await commands();
        return {
          readsIssued,
          upstreamReads: (await upstreamCounters(stats)).reads - readsBefore,
          redisCommandsPerRead:
            commandsBefore === undefined || commandsAfter === undefined
              ? undefined
              : (commandsAfter - commandsBefore - PROBE_COMMANDS) / level.reads,
        };
      },
      note: (run) =>
        `, upstream reads ${run.upstreamReads}/${run.readsIssued}` +
        (run.redisCommandsPerRead === undefined
          ? ''
          : `, redis ${run.redisCommandsPerRead.toFixed(2)} cmd/read`),
    });
    byLevel.push(runs as ReplicaRun[]);
  }
  return byLevel;
}

/** The median round of each path at one level, and each `[path, baseline]` pair compared (when both ran). */
export function compareLevel(
  concurrency: number,
  runs: ReplicaRun[],
  pairs: readonly (readonly [path: string, baseline: string])[],
): ReplicaLevel {
  const medians = mediansOf(runs);
  const ran = pairs.filter(([path, baseline]) => medians[path] && medians[baseline]);
  const comparisons: Comparison[] = ran.map(([path, baseline]) => {
    const m = medians[path]!;
    const base = medians[baseline]!;
    return { path, baseline, ...compared(m, base) };
  });
  return { concurrency, medians, comparisons, rounds: runs };
}
