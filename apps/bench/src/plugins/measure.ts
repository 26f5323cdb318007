import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { controlClient, type TestServerStats } from '@switchyard/testkit';
import { rssMiB } from '@switchyard/testkit/process';
import type { RunOptions } from '../client.js';
import { readLoop } from '../read.js';
import { compared, measureRounds, mediansOf } from '../rounds.js';
import type { Gateway, GatewayOptions, PluginEntry, Upstream } from '../services.js';
import type { HitCeiling, PluginLevel, PluginLevelConfig, PluginRun } from './model.js';

/** A measured path: a client, its URIs and how many upstream reads each read must cause. */
export interface Target {
  path: string;
  client: Client;
  uris: string[];
  gateway?: Gateway;
  /** Upstream `resources/read` calls per read issued: 0 = every read is a cache hit, 1 = every read reaches it. */
  upstreamReadsPerRead: 0 | 1;
  /** Round-robin position, carried across loops so that a path's reads cycle through all its URIs. */
  next: number;
}

export async function upstreamCounters(
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

export function statsOf(upstream: Upstream): () => Promise<TestServerStats> {
  if (!upstream.controlUrl) {
    throw new Error(`upstream ${upstream.name} printed no controlUrl: cannot count its reads`);
  }
  const control = controlClient(upstream.controlUrl);
  return () => control.stats();
}

/** `uris` starting at `from` (wrapping), so a loop continues the round-robin where the last one stopped. */
export function rotated(uris: readonly string[], from: number): string[] {
  const k = from % uris.length;
  return [...uris.slice(k), ...uris.slice(0, k)];
}

/** Runs `count` reads on a target, continuing its round-robin. */
export async function loop(target: Target, count: number, concurrency: number, minBytes: number) {
  const uris = rotated(target.uris, target.next);
  target.next = (target.next + count) % target.uris.length;
  return readLoop(target.client, uris, count, concurrency, minBytes);
}

/**
 * Interleaved rounds (rounds.ts) over every level, the paths in the order of `targets` rotated each round.
 * Every round is checked against the upstream's read counter.
 */
export async function measure(options: {
  what: string;
  targets: Target[];
  levels: PluginLevelConfig[];
  rounds: number;
  payloadBytes: number;
  upstream: Upstream;
  log: (message: string) => void;
}): Promise<PluginRun[][]> {
  const { targets, upstream, what } = options;
  const stats = statsOf(upstream);
  const byLevel: PluginRun[][] = [];
  for (const level of options.levels) {
    const [runs] = await measureRounds({
      plan: {
        what,
        warmup: level.warmup,
        count: level.reads,
        concurrencies: [level.concurrency],
        rounds: options.rounds,
      },
      log: options.log,
      variants: targets.map((target) => ({
        name: target.path,
        loop: (count, concurrency) => loop(target, count, concurrency, options.payloadBytes),
        cpu: { upstream: upstream.proc, gateway: target.gateway?.proc },
      })),
      before: () => upstreamCounters(stats),
      after: async (run, before, readsIssued) => {
        const target = targets.find((t) => t.path === run.path)!;
        const after = await upstreamCounters(stats);
        const upstreamReads = after.reads - before.reads;
        const expected = target.upstreamReadsPerRead * readsIssued;
        if (upstreamReads !== expected) {
          throw new Error(
            target.upstreamReadsPerRead === 0
              ? `${what}: the cache is not hitting: the upstream served ${upstreamReads} resources/read during ` +
                  `${readsIssued} reads through the ${target.path} gateway (c=${run.concurrency}, round ` +
                  `${run.round + 1}); expected 0 after warming`
              : `${what}: ${target.path} c=${run.concurrency} round ${run.round + 1}: the upstream served ` +
                  `${upstreamReads} resources/read for ${readsIssued} reads issued; expected exactly ${expected} ` +
                  '(every read a miss)',
          );
        }
        return {
          readsIssued,
          upstreamReads,
          upstreamSubscribes: after.subscribes - before.subscribes,
          upstreamUnsubscribes: after.unsubscribes - before.unsubscribes,
          gatewayRssMiB: target.gateway && rssMiB(target.gateway.proc.pid),
        };
      },
      note: (run) => `, upstream reads ${run.upstreamReads}/${run.readsIssued}`,
    });
    byLevel.push(runs!);
  }
  return byLevel;
}

/** The median round of each path and every path compared with `baseline`. */
export function summarizeLevel(concurrency: number, runs: PluginRun[], baseline: string): PluginLevel {
  const medians = mediansOf(runs);
  const base = medians[baseline]!;
  const comparisons = Object.values(medians)
    .filter((m) => m.path !== baseline)
    .map((m) => ({ path: m.path, baseline, ...compared(m, base) }));
  return { concurrency, medians, comparisons, rounds: runs };
}

export function hitCeiling(level: PluginLevel): HitCeiling | undefined {
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

export function profiledAs(options: RunOptions, name: string, plugins: PluginEntry[]): GatewayOptions {
  return {
    plugins,
    name: `gateway (${name})`,
    cpuProfDir: options.cpuProfDir && join(options.cpuProfDir, name),
  };
}
