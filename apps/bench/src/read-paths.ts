/**
 * Sections 3a/3b and 5a–5c: paths (direct, a gateway, a balancer in front of replicas) reading their URIs
 * round-robin, each round with the upstream's read and subscribe counts (checked where a path states how
 * many upstream reads a read must cause), the CPU of every process involved and Redis commands per read.
 */
import { rssMiB } from '@switchyard/testkit/process';
import { counters, type Gateway, type Upstream } from './harness.js';
import { measureCompared, type Pair, type Requester, readLoop } from './measure.js';
import { PROBE_COMMANDS, redisCounters } from './replicas/redis-probe.js';
import type { Sizes } from './sizes.js';

/** A measured path: its client, the URIs it reads and the processes that serve it. */
export interface ReadPath {
  path: string;
  client: Requester;
  uris: string[];
  /** The gateways behind this path (their CPU is summed); absent on a direct path. */
  gateways?: Gateway[];
  /** HAProxy, when the path goes through one. */
  balancer?: { proc: Gateway['proc'] };
  /** When set, checked every round: 0 = every read is a cache hit, 1 = every read reaches the upstream. */
  upstreamReadsPerRead?: 0 | 1;
  /** Round-robin position, carried across loops so that a path's reads cycle through all its URIs. */
  next?: number;
}

/**
 * A part with one gateway per path (3b, 5b): each path reads, through a client on its gateway (`connect`,
 * scoped by the caller), the URIs the gateway lists (`list` checks them), in the gateways' order.
 */
export async function gatewayReadPaths<C extends Requester>(
  gateways: Record<string, Gateway>,
  connect: (gateway: Gateway, path: string) => Promise<C>,
  list: (client: C) => Promise<string[]>,
  upstreamReadsPerRead?: 0 | 1,
): Promise<ReadPath[]> {
  const paths: ReadPath[] = [];
  for (const [path, gateway] of Object.entries(gateways)) {
    const client = await connect(gateway, path);
    paths.push({ path, client, uris: await list(client), gateways: [gateway], upstreamReadsPerRead });
  }
  return paths;
}

/** Runs `count` checked reads on a path at `concurrency`, continuing its round-robin over its URIs. */
export function readPath(path: ReadPath, count: number, concurrency: number, minBytes: number) {
  const first = path.next ?? 0;
  path.next = (first + count) % path.uris.length;
  return readLoop(path.client, path.uris, count, concurrency, minBytes, first);
}

export type ReadPathLevel = Awaited<ReturnType<typeof measureReadPaths>>[number];
export type ReadPathRun = ReadPathLevel['rounds'][number];

/**
 * Interleaved rounds of every path at every level, rotated each round. A round adds to `Run` the reads
 * issued (warm-up + timed), the upstream's read, subscribe and unsubscribe counts over them, the RSS of a
 * one-gateway path after it (MiB) and, with Redis, its commands per timed read (the probes excluded).
 */
export async function measureReadPaths(options: {
  what: string;
  paths: ReadPath[];
  levels: Sizes['replicas']['levels'];
  rounds: number;
  payloadBytes: number;
  upstream: Upstream;
  pairs: readonly Pair[];
  /** The part's redis-server: its CPU and commands per read are recorded. */
  redis?: { url: string; proc: Gateway['proc'] };
  log: (message: string) => void;
}) {
  const { paths, redis } = options;
  const stats = counters(options.upstream);
  const pathOf = (name: string) => paths.find((p) => p.path === name)!;
  return measureCompared({
    what: options.what,
    levels: options.levels.map((l) => ({ concurrency: l.concurrency, warmup: l.warmup, count: l.reads })),
    rounds: options.rounds,
    log: options.log,
    pairs: options.pairs,
    variants: paths.map((path) => ({
      name: path.path,
      loop: (count, concurrency) => readPath(path, count, concurrency, options.payloadBytes),
      cpu: {
        upstream: options.upstream.proc,
        gateway: path.gateways?.map((g) => g.proc),
        balancer: path.balancer?.proc,
        redis: redis?.proc,
      },
    })),
    counters: {
      // Redis commands over the timed reads (the probe's own subtracted below).
      commands: { read: async () => (redis ? (await redisCounters(redis.url)).commands : 0), timed: true },
      reads: {
        read: async () => (await stats()).reads,
        perRequest: (variant) => pathOf(variant.name).upstreamReadsPerRead,
        label: 'upstream resources/read (0: every read a hit after warming; 1: every read a miss)',
      },
      subscribes: { read: async () => (await stats()).subscribes },
      unsubscribes: { read: async () => (await stats()).unsubscribes },
    },
    after: (run, moved, readsIssued) => {
      const gateways = pathOf(run.path).gateways;
      const gateway = gateways?.length === 1 ? gateways[0] : undefined;
      return {
        readsIssued,
        upstreamReads: moved.reads,
        upstreamSubscribes: moved.subscribes,
        upstreamUnsubscribes: moved.unsubscribes,
        gatewayRssMiB: gateway && rssMiB(gateway.proc.pid),
        redisCommandsPerRead: redis ? (moved.commands - PROBE_COMMANDS) / run.count : undefined,
      };
    },
    note: (run) =>
      `, upstream reads ${run.upstreamReads}/${run.readsIssued}` +
      (run.redisCommandsPerRead === undefined
        ? ''
        : `, redis ${run.redisCommandsPerRead.toFixed(2)} cmd/read`),
  });
}
