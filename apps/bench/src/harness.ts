/**
 * What every section starts: testkit upstreams and gateways (the built CLIs, each waited for via its ready
 * line), redis-server and HAProxy, and MCP clients. Every child belongs to `children`, which main stops on
 * exit, error or SIGINT; a `Scope` stops what one part started, together, when the part is done.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { controlClient } from '@switchyard/testkit';
import {
  type LaunchedGateway,
  LegacyHttpClient,
  launchGateway,
  startTestkitHttp,
  type TestkitHttp,
} from '@switchyard/testkit/mcp';
import { ProcessGroup, startBalancer, startRedis } from '@switchyard/testkit/process';

/** Every child process of the run; `children.crashed` rejects when one exits on its own after start. */
export const children = new ProcessGroup();

/** A ready line that is one JSON object. */
export const jsonLine = <T>(line: string): T | undefined =>
  line.startsWith('{') ? (JSON.parse(line) as T) : undefined;

function gatewayCli(): string {
  let entry: string;
  try {
    entry = import.meta.resolve('switchyard');
  } catch (error) {
    throw new Error(`cannot resolve the gateway CLI (switchyard): ${String(error)}`);
  }
  const cli = fileURLToPath(new URL('./cli.js', entry));
  if (!existsSync(cli)) throw new Error(`${cli} not found: build first (pnpm build)`);
  return cli;
}

/** Where a section writes its progress lines. */
export type Log = (message: string) => void;

export interface UpstreamSpec {
  name: string;
  resources: number;
  /** Generated echo tools `tool_0 … tool_{N-1}` (testkit `--tools`). */
  tools?: number;
  pageSize?: number;
  payloadBytes?: number;
  latencyMs?: number;
  /** Also serve the 2026-07-28 era, statelessly at the same URL (testkit `--modern`). */
  modern?: boolean;
}

/** A testkit server over Streamable HTTP in its own process (`Scope.upstream`); `controlUrl` serves its counters. */
export type Upstream = TestkitHttp & { name: string };

/** The upstream's request counters (testkit control API): reads, calls, subscribes, subscriptions held. */
export function counters(upstream: Upstream) {
  if (!upstream.controlUrl) throw new Error(`upstream ${upstream.name} printed no controlUrl`);
  const control = controlClient(upstream.controlUrl);
  return async () => {
    const s = await control.stats();
    return {
      reads: s.requests['resources/read'] ?? 0,
      calls: s.requests['tools/call'] ?? 0,
      subscribes: s.subscribeCalls,
      unsubscribes: s.unsubscribeCalls,
      held: Object.values(s.subscribed).reduce((sum, n) => sum + Math.max(0, n), 0),
    };
  };
}

/** One entry of the gateway config's `plugins`: `[package name or path, options]`; first = outermost. */
export type PluginEntry = [specifier: string, options: Record<string, unknown>];

export interface GatewayOptions {
  /** When set, the gateway runs under `node --cpu-prof` and writes its profile here on exit. */
  cpuProfDir?: string;
  plugins?: PluginEntry[];
  /** Process name in progress and error messages (default `gateway`). */
  name?: string;
  /** More top-level config keys, e.g. `store` and `cursorSecret` for replicas sharing a Redis. */
  config?: Record<string, unknown>;
  /** More `node` flags before the CLI, e.g. `--inspect=127.0.0.1:0`. */
  nodeArgs?: readonly string[];
}

/**
 * The gateway CLI fronting `upstreams` on an ephemeral port; its scratch dir (relative plugin paths resolve
 * from it) is removed by `children.stopAll()`. Fails if some upstream did not connect.
 */
async function startGateway(upstreams: Upstream[], options: GatewayOptions = {}): Promise<Gateway> {
  if (options.cpuProfDir) await mkdir(options.cpuProfDir, { recursive: true });
  const gateway = await launchGateway({
    cli: gatewayCli(),
    group: children,
    name: options.name,
    requireUpstreams: true,
    nodeArgs: [
      ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []),
      ...(options.nodeArgs ?? []),
    ],
    config: {
      mcpServers: Object.fromEntries(upstreams.map((u) => [u.name, { url: u.url }])),
      ...(options.plugins?.length ? { plugins: options.plugins } : {}),
      ...options.config,
    },
  });
  return children.own(gateway);
}

export type Gateway = LaunchedGateway;

/** Each gateway's warning kinds (digits masked) → count, by its name. */
export function warningsOf<K extends string>(gateways: Record<K, Gateway>) {
  const entries = Object.entries<Gateway>(gateways).map(([k, g]) => [k, Object.fromEntries(g.proc.warnings)]);
  return Object.fromEntries(entries) as Record<K, Record<string, number>>;
}

/** The secret every replica shares (cursors and sealed ids minted by one are valid on all). */
const CURSOR_SECRET = 'switchyard-bench-replicas-0123456789abcdef';

/** The config keys that make gateways replicas of one deployment: `store.redis` and `cursorSecret`. */
export function replicaConfig(redis: { url: string }, keyPrefix = 'bench:'): Record<string, unknown> {
  return { cursorSecret: CURSOR_SECRET, store: { redis: { url: redis.url, keyPrefix } } };
}

/** Per-request options of every measured request: a bounded timeout (the SDK default is 60 s). */
export const REQUEST_OPTIONS = { timeout: 30_000 } as const;

export interface RunOptions {
  /** When set, gateways run under `node --cpu-prof` and write their profiles here on exit. */
  cpuProfDir?: string;
  /** `raw`: the testkit's lean LegacyHttpClient (2025-06-18) instead of the SDK client, on every path. */
  rawClient?: boolean;
  /** Counts the client's POSTs and those answered as an SSE stream (SDK client only). */
  postCounter?: { posts: number; streamed: number };
}

/**
 * The SDK transport passes ONE long-lived AbortSignal to every POST; Node 20's fetch adds a listener to it
 * per request (removed only at GC) and, past 1,500 of them, warns on every request: client CPU spent
 * equally on both paths. The bench never closes a client with requests in flight, so POSTs drop it.
 */
const postWithoutSharedSignal: FetchLike = (url, init) =>
  fetch(url, init?.method === 'POST' ? { ...init, signal: undefined } : init);

/**
 * What one part started (processes, services, clients), stopped together by `close()`: each stop once,
 * all at once, failures ignored.
 */
export class Scope {
  readonly #steps: (() => unknown)[] = [];

  /** Runs `fn` with a fresh scope, closed after whatever happens. */
  static async with<T>(fn: (scope: Scope) => Promise<T>): Promise<T> {
    const scope = new Scope();
    try {
      return await fn(scope);
    } finally {
      await scope.close();
    }
  }

  add(step: () => unknown): void {
    this.#steps.push(step);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#steps.splice(0).map(async (step) => step()));
  }

  /** Runs `start`; if it throws, stops what it had started before rethrowing (else keeps it for `close`). */
  async guard<T>(start: (scope: Scope) => Promise<T>): Promise<T> {
    try {
      return await start(this);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** A testkit upstream serving `spec` (its CLI flags), stopped with the scope. */
  async upstream(spec: UpstreamSpec): Promise<Upstream> {
    const args = ['--port', '0', '--name', spec.name, '--resources', String(spec.resources)];
    if (spec.tools) args.push('--tools', String(spec.tools));
    if (spec.pageSize) args.push('--page-size', String(spec.pageSize));
    if (spec.payloadBytes) args.push('--payload-bytes', String(spec.payloadBytes));
    if (spec.latencyMs) args.push('--latency-ms', String(spec.latencyMs));
    if (spec.modern) args.push('--modern');
    const started = await startTestkitHttp({ group: children, name: `upstream ${spec.name}`, args });
    this.add(() => started.proc.stop());
    return { name: spec.name, ...started };
  }

  /**
   * One gateway per entry of `specs`, all at once, each fronting `upstreams`; when one fails to start,
   * throws once all settled (the started ones are this scope's, so `guard` or `close` stops them).
   */
  async gateways<K extends string>(upstreams: Upstream[], specs: Record<K, GatewayOptions>) {
    const names = Object.keys(specs) as K[];
    const settled = await Promise.allSettled(names.map((n) => startGateway(upstreams, specs[n])));
    for (const s of settled) if (s.status === 'fulfilled') this.add(() => s.value.proc.stop());
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    return Object.fromEntries(
      names.map((n, i) => [n, (settled[i] as PromiseFulfilledResult<Gateway>).value]),
    ) as Record<K, Gateway>;
  }

  /** One gateway per path with that path's plugins (under `--cpu-prof`, profiled as `<prefix><path>`). */
  async pluginGateways<K extends string>(
    upstreams: Upstream[],
    plugins: Record<K, PluginEntry[]>,
    options: RunOptions,
    prefix = '',
  ) {
    const specs = Object.entries<PluginEntry[]>(plugins).map(([path, entries]): [K, GatewayOptions] => {
      const name = `${prefix}${path}`;
      const cpuProfDir = options.cpuProfDir && join(options.cpuProfDir, name);
      return [path as K, { plugins: entries, name: `gateway (${name})`, cpuProfDir }];
    });
    return this.gateways(upstreams, Object.fromEntries(specs) as Record<K, GatewayOptions>);
  }

  async gateway(upstreams: Upstream[], options: GatewayOptions = {}): Promise<Gateway> {
    return (await this.gateways(upstreams, { gateway: options })).gateway;
  }

  /**
   * One MCP client session over Streamable HTTP, closed with the scope: the SDK client (fetch pools the TCP
   * connections), or with `rawClient` the testkit's LegacyHttpClient (2025-06-18), structurally the part of
   * `Client` the benchmarks use (`request`) without its result validation.
   */
  async client(url: string, name: string, options: RunOptions = {}): Promise<Client> {
    if (options.rawClient) {
      const raw = this.own(
        await LegacyHttpClient.open(url, { clientName: 'bench-raw', protocolVersion: '2025-06-18' }),
      );
      return raw as unknown as Client;
    }
    const counter = options.postCounter;
    const client = new Client({ name, version: '0.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch: async (url, init) => {
        const res = await postWithoutSharedSignal(url, init);
        if (counter && init?.method === 'POST') {
          counter.posts += 1;
          if (res.headers.get('content-type')?.startsWith('text/event-stream')) counter.streamed += 1;
        }
        return res;
      },
    });
    await client.connect(transport, { timeout: 10_000 });
    this.add(async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    });
    return client;
  }

  /** Any closable thing (a raw client, an HTTP agent), closed with the scope. */
  own<T extends { close(): unknown } | { destroy(): unknown }>(thing: T): T {
    this.add(() => ('close' in thing ? thing.close() : thing.destroy()));
    return thing;
  }

  /** A fresh redis-server on an ephemeral port (also main's, in case). */
  async redis() {
    const redis = children.own(await startRedis());
    this.add(() => redis.stop());
    return redis;
  }

  /** HAProxy (`mode http`) round-robin over the servers at `urls`, with the path of the first (also main's, in case). */
  async balancer(urls: readonly string[]) {
    const balancer = children.own(await startBalancer(urls.map((u) => ({ port: Number(new URL(u).port) }))));
    this.add(() => balancer.stop());
    return Object.assign(balancer, { mcpUrl: `${balancer.url}${new URL(urls[0]!).pathname}` });
  }

  /** A script next to `base` run as a child, ready once it prints the line `ready` accepts (stdout). */
  async script<T>(
    name: string,
    base: string,
    args: string[],
    ready: (line: string) => T | undefined,
    env = {},
  ) {
    const path = fileURLToPath(new URL(args[0]!, base));
    const started = await children.start({
      name,
      args: [path, ...args.slice(1)],
      env,
      ready: { stream: 'stdout', line: ready },
    });
    this.add(() => started.proc.stop());
    return started;
  }
}
