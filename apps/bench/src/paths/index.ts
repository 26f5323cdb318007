/**
 * Section 6, the request path on every transport and era (`--only paths`): four upstreams (stdio, Streamable
 * HTTP legacy-only, Streamable HTTP also speaking 2026-07-28, WebSocket) behind one gateway; for each, both
 * client eras (a 2025-11-25 session, sessionless 2026-07-28 requests; raw JSON-RPC), `resources/read`
 * (1 KiB) and `tools/call` (echo), at each concurrency: direct vs the floor proxy vs HAProxy (HTTP upstreams,
 * when installed) vs the gateway, in the same rounds, with each middle process's CPU per request. Then the memory of idle legacy sessions on a fresh gateway, and under
 * `--cpu-prof` the two slowest paths profiled on fresh gateways.
 */
import { haproxyMissing, type ManagedProcess, startBalancer } from '@switchyard/testkit/process';
import type { RunOptions } from '../client.js';
import { filler, targetsOf } from '../requests.js';
import { children, type Gateway, startGateway, testkitCli } from '../services.js';
import { INSPECT_ARGS, measureIdleSessions } from '../session-memory/index.js';
import { PathClients } from './clients.js';
import { cellKey, noDirectReason, pathCells, slowestCells } from './matrix.js';
import { measureCell } from './measure.js';
import type { PathsConfig, PathsResult, UpstreamKind } from './model.js';
import { UPSTREAM_NAMES } from './model.js';
import { profileCell } from './profiles.js';
import {
  type Floor,
  gatewayServers,
  type RunningUpstreams,
  startFloor,
  startUpstreams,
} from './upstreams.js';

export type { PathsConfig, PathsResult } from './model.js';

/** Paths profiled under `--cpu-prof`. */
const PROFILED_PATHS = 2;
/** Sessions opened and deleted on the memory gateway before its baseline (code loaded, caches filled). */
const MEMORY_WARMUP_SESSIONS = 16;

/** Runs the matrix into `result.cells` (filled as cells finish), then memory and profiles. */
export async function runPathsBenchmark(
  config: PathsConfig,
  log: (message: string) => void,
  result: PathsResult,
  options: RunOptions = {},
): Promise<void> {
  const upstreams = await startUpstreams(config.upstreams, config);
  try {
    await runWith(upstreams, config, log, result, options);
  } finally {
    await Promise.allSettled(upstreams.procs.map((p) => p.stop()));
  }
}

async function runWith(
  upstreams: RunningUpstreams,
  config: PathsConfig,
  log: (message: string) => void,
  result: PathsResult,
  options: RunOptions,
): Promise<void> {
  const mcpServers = gatewayServers(config.upstreams, upstreams.endpoints, config, testkitCli());
  const text = filler(config.argumentBytes);
  const clients = new PathClients();
  let gateway: Gateway | undefined;
  const floors = new Map<UpstreamKind, Floor>();
  const balancers = new Map<UpstreamKind, { url: string; proc: ManagedProcess; stop(): Promise<void> }>();
  result.haproxySkipped = haproxyMissing() && 'haproxy: not installed, row skipped';
  if (result.haproxySkipped) log(`paths: ${result.haproxySkipped}`);
  try {
    for (const kind of config.upstreams) {
      floors.set(kind, await startFloor(kind, upstreams.endpoints, config));
      const url = kind === 'http-legacy' || kind === 'http-modern' ? upstreams.endpoints[kind] : undefined;
      if (url && !result.haproxySkipped) {
        // HAProxy in `mode http` in front of the same upstream, one backend: the practical limit of one more hop.
        const balancer = children.own(await startBalancer([{ port: Number(new URL(url).port) }]));
        balancers.set(kind, {
          ...balancer,
          url: `${balancer.url}${new URL(url).pathname}`,
          stop: () => balancer.stop(),
        });
      }
    }
    gateway = await startGateway([], { config: { mcpServers } });
    log(`paths: gateway ${gateway.url}, upstreams ${JSON.stringify(upstreams.endpoints)} + stdio`);
    const viaGateway = {
      legacy: await clients.http(gateway.url, 'legacy'),
      modern: await clients.http(gateway.url, 'modern'),
    };
    for (const cell of pathCells(config)) {
      const name = UPSTREAM_NAMES[cell.upstream];
      const directClient = await clients.direct(cell.upstream, cell.era, upstreams.endpoints, config);
      const upstreamTargets = targetsOf(name, config.resources, config.tools, false);
      const middle = async (what: string, m: { url: string; proc: ManagedProcess } | undefined) =>
        directClient && m
          ? {
              client: await clients.middle(what, m.url, cell.upstream, cell.era),
              targets: upstreamTargets,
              proc: m.proc,
            }
          : undefined;
      const measured = await measureCell({
        cell,
        config,
        text,
        sides: {
          direct: directClient && { client: directClient, targets: upstreamTargets },
          floor: await middle('floor', floors.get(cell.upstream)),
          haproxy: await middle('haproxy', balancers.get(cell.upstream)),
          gateway: {
            client: viaGateway[cell.era],
            targets: targetsOf(name, config.resources, config.tools, true),
            proc: gateway.proc,
          },
        },
        noDirect: noDirectReason(cell.upstream, cell.era),
        log,
      });
      result.cells.push(measured);
    }
    result.gatewayWarnings = Object.fromEntries(gateway.proc.warnings);
  } finally {
    await clients.close();
    await gateway?.proc.stop();
    await Promise.allSettled([
      ...[...floors.values()].map((f) => f.proc.stop()),
      ...[...balancers.values()].map((b) => b.stop()),
    ]);
  }

  if (config.sessions > 0) {
    const fresh = await startGateway([], {
      name: 'gateway (idle sessions)',
      nodeArgs: INSPECT_ARGS,
      config: { mcpServers, limits: { sessionsPerClient: config.sessions + 100 } },
    });
    try {
      const sessions = { sessions: config.sessions, warmup: MEMORY_WARMUP_SESSIONS };
      result.memory = await measureIdleSessions(fresh, sessions, 'paths memory', log);
    } finally {
      await fresh.proc.stop();
    }
  }

  if (options.cpuProfDir) {
    result.profiles = [];
    for (const slow of slowestCells(result.cells, PROFILED_PATHS)) {
      log(`paths: profiling ${cellKey(slow)}`);
      result.profiles.push(
        await profileCell({ cell: slow, config, mcpServers, root: options.cpuProfDir, text, log }),
      );
    }
  }
}
