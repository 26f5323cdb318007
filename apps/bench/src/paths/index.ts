/**
 * Section 6, the request path on every transport and era (README.md, section 6): four upstreams serving the
 * same resources and echo tools (stdio, spawned by the gateway and once more by the direct client; a
 * legacy-only Streamable HTTP testkit; one with `--modern`, so the gateway picks the 2026-07-28 hop; the
 * WebSocket host of ws-upstream.ts) behind one gateway. For each, both client eras (raw JSON-RPC), read and
 * call, at each concurrency: direct vs the floor proxy (floor-proxy.ts) vs HAProxy (HTTP upstreams, when
 * installed) vs the gateway, in the same rounds, the order mirrored every other round, with each middle
 * process's CPU per request. Then idle legacy sessions on a fresh gateway, and under `--cpu-prof` the two
 * slowest paths again on fresh profiled gateways (the timed matrix never runs profiled).
 */
import { Agent } from 'node:http';
import { join } from 'node:path';
import {
  ChannelClient,
  LegacyHttpClient,
  ModernHttpClient,
  type RequestClient,
  testkitCliPath,
} from '@switchyard/testkit/mcp';
import { haproxyMissing, type ManagedProcess } from '@switchyard/testkit/process';
import { children, jsonLine, type Log, type RunOptions, Scope } from '../harness.js';
import { callLoop, filler, measureRounds, readLoop, type Targets, targetsOf } from '../measure.js';
import { summarizeProfiles } from '../profile.js';
import { INSPECT_ARGS, measureIdleSessions } from '../session-memory/index.js';
import {
  type ClientEra,
  cellKey,
  compareCell,
  noDirectReason,
  type PathCell,
  type PathSide,
  type PathsConfig,
  type PathsResult,
  pathCells,
  slowestCells,
  UPSTREAM_NAMES,
  type UpstreamKind,
} from './matrix.js';

type Catalog = Pick<PathsConfig, 'resources' | 'payloadBytes' | 'tools'>;
/** Where each networked upstream listens (stdio has no address: it is spawned per client). */
type Endpoints = Partial<Record<Exclude<UpstreamKind, 'stdio'>, string>>;

/** The testkit arguments that give an upstream named `name` the benchmark's resources and tools. */
export function catalogArgs(name: string, c: Catalog): string[] {
  const flags = { name, resources: c.resources, 'payload-bytes': c.payloadBytes, tools: c.tools };
  return Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, String(value)]);
}

/** The gateway's `mcpServers` for `kinds`: stdio as a command (the gateway spawns it), the others by URL. */
export function gatewayServers(
  kinds: readonly UpstreamKind[],
  endpoints: Endpoints,
  c: Catalog,
  testkit: string,
) {
  const servers: Record<string, Record<string, unknown>> = {};
  for (const kind of kinds) {
    const name = UPSTREAM_NAMES[kind];
    if (kind === 'stdio') {
      servers[name] = { command: process.execPath, args: [testkit, '--stdio', ...catalogArgs(name, c)] };
    } else if (endpoints[kind] === undefined) throw new Error(`no ${kind} upstream running`);
    else servers[name] = { url: endpoints[kind] };
  }
  return servers;
}

/** The networked upstreams among `kinds`, started in parallel. */
async function startUpstreams(kinds: readonly UpstreamKind[], c: Catalog, scope: Scope) {
  const endpoints: Endpoints = {};
  const catalog = { resources: c.resources, payloadBytes: c.payloadBytes, tools: c.tools };
  await Promise.all(
    kinds.map(async (kind) => {
      if (kind === 'http-legacy' || kind === 'http-modern') {
        const modern = kind === 'http-modern';
        endpoints[kind] = (await scope.upstream({ name: UPSTREAM_NAMES[kind], ...catalog, modern })).url;
      } else if (kind === 'ws') {
        const args = ['./ws-upstream.js', ...catalogArgs(UPSTREAM_NAMES.ws, c)];
        endpoints.ws = (
          await scope.script('upstream ws', import.meta.url, args, jsonLine<{ url: string }>)
        ).ready.url;
      }
    }),
  );
  return endpoints;
}

/** The floor proxy in front of `upstream`: a stdio upstream is spawned by it, a networked one reached by URL. */
async function startFloor(upstream: UpstreamKind, endpoints: Endpoints, c: Catalog, scope: Scope) {
  const stdio = [process.execPath, testkitCliPath(), '--stdio', ...catalogArgs(UPSTREAM_NAMES.stdio, c)];
  const url = upstream === 'stdio' ? undefined : endpoints[upstream];
  if (upstream !== 'stdio' && url === undefined)
    throw new Error(`no ${upstream} upstream for the floor proxy`);
  const target = upstream === 'stdio' ? ['stdio', ...stdio] : [upstream === 'ws' ? 'ws' : 'http', url!];
  const floor = await scope.script(
    `floor proxy (${upstream})`,
    import.meta.url,
    ['./floor-proxy.js', ...target],
    (line) => /^listening (\d+)$/.exec(line)?.[1],
  );
  return { proc: floor.proc, url: `http://127.0.0.1:${floor.ready}/mcp` };
}

/** The clients of every side, opened once per key and closed with the scope. */
class PathClients {
  readonly #agent: Agent;
  readonly #byKey = new Map<string, Promise<RequestClient>>();

  constructor(readonly scope: Scope) {
    this.#agent = scope.own(new Agent({ keepAlive: true, maxSockets: 64 }));
  }

  /** A client of `era` at `url` (a legacy session, or sessionless 2026-07-28 requests). */
  async http(url: string, era: ClientEra): Promise<RequestClient> {
    const client =
      era === 'modern'
        ? new ModernHttpClient(url, { clientName: 'bench-paths' })
        : await LegacyHttpClient.open(url, { agent: this.#agent, clientName: 'bench-paths' });
    return this.scope.own(client);
  }

  /** The client opened for `key`, opening it on first use. */
  once(key: string, open: () => Promise<RequestClient>): Promise<RequestClient> {
    if (!this.#byKey.has(key)) this.#byKey.set(key, open());
    return this.#byKey.get(key)!;
  }

  /** The direct client of `upstream` in `era`, or undefined when it has none. */
  async direct(upstream: UpstreamKind, era: ClientEra, endpoints: Endpoints, c: Catalog) {
    if (noDirectReason(upstream, era) !== undefined) return undefined;
    return this.once(`${upstream}/${era}`, async () => {
      if (upstream === 'ws')
        return this.scope.own(await ChannelClient.overWebSocket(endpoints.ws!, 'bench-paths-ws'));
      if (upstream !== 'stdio') return this.http(endpoints[upstream]!, era);
      const { proc } = await children.start({
        name: 'upstream stdio (direct)',
        args: [testkitCliPath(), '--stdio', ...catalogArgs(UPSTREAM_NAMES.stdio, c)],
        stdin: 'pipe',
        keepChars: 64 * 1024,
        ready: { stream: 'stderr', line: /serving '.*' on stdio/ },
      });
      return this.scope.own(await ChannelClient.overStdio(proc, 'bench-paths-stdio'));
    });
  }
}

/** `count` checked requests of `method` (a read of `targets.uris` or a call of `targets.tools`). */
function methodLoop(
  client: RequestClient,
  cell: PathCell,
  targets: Targets,
  config: PathsConfig,
  count: number,
) {
  const text = filler(config.argumentBytes);
  return cell.method === 'read'
    ? readLoop(client, targets.uris, count, cell.concurrency, config.payloadBytes)
    : callLoop(client, targets, text, count, cell.concurrency);
}

/** A side of a cell: its client, what it addresses, and the process in the middle whose CPU is read. */
type Side = { client: RequestClient; targets: Targets; proc?: ManagedProcess };

/** One cell: per round, every side that exists, the order mirrored every other round. */
async function measureCell(
  cell: PathCell,
  config: PathsConfig,
  sides: Partial<Record<PathSide, Side>>,
  log: Log,
) {
  const [runs] = await measureRounds({
    what: `paths ${cellKey(cell)}`,
    levels: [{ concurrency: cell.concurrency, warmup: config.warmup, count: config.count }],
    rounds: config.rounds,
    order: 'mirror',
    log,
    variants: (['direct', 'floor', 'haproxy', 'gateway'] as const).flatMap((name) => {
      const side = sides[name];
      if (!side) return [];
      const loop = (count: number) => methodLoop(side.client, cell, side.targets, config, count);
      return [{ name, loop, cpu: side.proc ? { [name]: side.proc } : {} }];
    }),
    note: (run) => {
      const us = run.cpuUsPerRead[run.path];
      return us === undefined ? '' : ` ${run.path} cpu ${(us / 1000).toFixed(3)} ms/req`;
    },
  });
  return compareCell(cell, runs!, noDirectReason(cell.upstream, cell.era));
}

/** Runs the matrix into `result.cells` (filled as cells finish), then memory and profiles. */
export async function runPathsBenchmark(
  config: PathsConfig,
  log: Log,
  result: PathsResult,
  options: RunOptions = {},
) {
  await Scope.with(async (upstreamScope) => {
    const endpoints = await startUpstreams(config.upstreams, config, upstreamScope);
    const mcpServers = gatewayServers(config.upstreams, endpoints, config, testkitCliPath());
    result.haproxySkipped = haproxyMissing() && 'haproxy: not installed, row skipped';
    if (result.haproxySkipped) log(`paths: ${result.haproxySkipped}`);
    await Scope.with(async (scope) => {
      const clients = new PathClients(scope);
      const middles = new Map<string, { url: string; proc: ManagedProcess }>();
      for (const kind of config.upstreams) {
        middles.set(`floor/${kind}`, await startFloor(kind, endpoints, config, scope));
        const url = kind === 'http-legacy' || kind === 'http-modern' ? endpoints[kind] : undefined;
        if (url && !result.haproxySkipped) {
          // HAProxy in `mode http` in front of the same upstream, one backend: the practical limit of one more hop.
          const balancer = await scope.balancer([url]);
          middles.set(`haproxy/${kind}`, { proc: balancer.proc, url: balancer.mcpUrl });
        }
      }
      const gateway = await scope.gateway([], { config: { mcpServers } });
      log(`paths: gateway ${gateway.url}, upstreams ${JSON.stringify(endpoints)} + stdio`);
      const viaGateway = {
        legacy: await clients.http(gateway.url, 'legacy'),
        modern: await clients.http(gateway.url, 'modern'),
      };
      for (const cell of pathCells(config)) {
        const name = UPSTREAM_NAMES[cell.upstream];
        const direct = await clients.direct(cell.upstream, cell.era, endpoints, config);
        const targets = targetsOf(name, config.resources, config.tools, false);
        const middle = async (what: string): Promise<Side | undefined> => {
          const m = middles.get(`${what}/${cell.upstream}`);
          if (!direct || !m) return undefined;
          const key = `${what}/${cell.upstream}/${cell.era}`;
          return {
            client: await clients.once(key, () => clients.http(m.url, cell.era)),
            targets,
            proc: m.proc,
          };
        };
        const sides = {
          direct: direct && { client: direct, targets },
          floor: await middle('floor'),
          haproxy: await middle('haproxy'),
          gateway: {
            client: viaGateway[cell.era],
            targets: targetsOf(name, config.resources, config.tools, true),
            proc: gateway.proc,
          },
        };
        result.cells.push(await measureCell(cell, config, sides, log));
      }
      result.gatewayWarnings = Object.fromEntries(gateway.proc.warnings);
    });

    if (config.sessions > 0) {
      result.memory = await Scope.with(async (scope) => {
        const fresh = await scope.gateway([], {
          name: 'gateway (idle sessions)',
          nodeArgs: INSPECT_ARGS,
          config: { mcpServers, limits: { sessionsPerClient: config.sessions + 100 } },
        });
        // 16 sessions opened and deleted before the baseline (code loaded, caches filled).
        return measureIdleSessions(fresh, { sessions: config.sessions, warmup: 16 }, 'paths memory', log);
      });
    }
    if (options.cpuProfDir) {
      result.profiles = [];
      for (const cell of slowestCells(result.cells, 2)) {
        log(`paths: profiling ${cellKey(cell)}`);
        result.profiles.push(await profileCell(cell, config, mcpServers, options.cpuProfDir, log));
      }
    }
  });
}

/** Runs `cell` through a profiled gateway (`warmup` + `profileRequests` requests) and summarizes its profile. */
async function profileCell(
  cell: PathCell,
  config: PathsConfig,
  mcpServers: Record<string, Record<string, unknown>>,
  root: string,
  log: Log,
) {
  const dir = join(root, `${cell.upstream}-${cell.era}-${cell.method}-c${cell.concurrency}`);
  const requests = config.profileRequests;
  await Scope.with(async (scope) => {
    const gateway = await scope.gateway([], {
      cpuProfDir: dir,
      name: `gateway (profiled ${cell.upstream} ${cell.era} ${cell.method})`,
      config: { mcpServers },
    });
    const client = await new PathClients(scope).http(gateway.url, cell.era);
    const targets = targetsOf(UPSTREAM_NAMES[cell.upstream], config.resources, config.tools, true);
    await methodLoop(client, cell, targets, config, config.warmup);
    await methodLoop(client, cell, targets, config, requests);
    log(`paths: profiled ${requests} requests of ${dir}`);
  }); // the profile is written as the gateway exits
  const summary = (await summarizeProfiles(dir, 15)).at(-1);
  if (!summary) throw new Error(`no .cpuprofile written in ${dir}`);
  return { cell, requests: requests + config.warmup, ...summary };
}

export type PathProfile = Awaited<ReturnType<typeof profileCell>>;
