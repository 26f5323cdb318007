/**
 * The two kinds of child the benchmark runs: testkit upstreams and gateways (the built CLIs of the sibling
 * packages), each waited for until it prints its ready line. Every child and scratch dir belongs to
 * `children`, which main stops on exit, error or SIGINT (and the testkit kills survivors on process exit).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launchGateway, startTestkitHttp, testkitCliPath } from '@switchyard/testkit/mcp';
import { type ManagedProcess, ProcessGroup } from '@switchyard/testkit/process';

/** Every child process of the run; `children.crashed` rejects when one exits on its own after start. */
export const children = new ProcessGroup();

function siblingCli(specifier: string, hint: string): string {
  let entry: string;
  try {
    entry = import.meta.resolve(specifier);
  } catch (error) {
    throw new Error(`cannot resolve ${specifier} (${hint}): ${String(error)}`);
  }
  const cli = fileURLToPath(new URL('./cli.js', entry));
  if (!existsSync(cli)) throw new Error(`${cli} not found: build first (pnpm build) — ${hint}`);
  return cli;
}

export const testkitCli = (): string => testkitCliPath();
export const gatewayCli = (): string => siblingCli('switchyard', 'gateway CLI');

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

export interface Upstream {
  proc: ManagedProcess;
  name: string;
  url: string;
  /** Base URL of the testkit's HTTP control API (`GET <controlUrl>/stats`: request counts per method). */
  controlUrl?: string;
}

/** Starts a testkit server over Streamable HTTP in its own process (the testkit's `startTestkitHttp`). */
export async function startUpstream(spec: UpstreamSpec): Promise<Upstream> {
  const args = ['--port', '0', '--name', spec.name, '--resources', String(spec.resources)];
  if (spec.tools) args.push('--tools', String(spec.tools));
  if (spec.pageSize) args.push('--page-size', String(spec.pageSize));
  if (spec.payloadBytes) args.push('--payload-bytes', String(spec.payloadBytes));
  if (spec.latencyMs) args.push('--latency-ms', String(spec.latencyMs));
  if (spec.modern) args.push('--modern');
  const started = await startTestkitHttp({ group: children, name: `upstream ${spec.name}`, args });
  return { name: spec.name, ...started };
}

/**
 * Waits for every start; when one failed, stops the processes the others started, then throws its error
 * (so a half-started set leaves nothing running).
 */
export async function allStarted<T extends { proc: ManagedProcess }>(starts: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.allSettled(
      settled.map((s) => (s.status === 'fulfilled' ? s.value.proc.stop() : undefined)),
    );
    throw failed.reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

export interface Gateway {
  proc: ManagedProcess;
  url: string;
  /**
   * The gateway's temp dir (removed by `children.stopAll()`), holding its config file: relative paths in plugin
   * options (e.g. the audit plugin's `file`) resolve from here.
   */
  dir: string;
}

/** One entry of the gateway config's `plugins`: `[package name or path, options]`; first = outermost. */
export type PluginEntry = [specifier: string, options: Record<string, unknown>];

export interface GatewayOptions {
  /** When set, the gateway runs under `node --cpu-prof` and writes its profile here on exit. */
  cpuProfDir?: string;
  /** The config's `plugins`, in order (default none). */
  plugins?: PluginEntry[];
  /** Process name in progress and error messages (default `gateway`). */
  name?: string;
  /** More top-level config keys, e.g. `store` and `cursorSecret` for replicas sharing a Redis. */
  config?: Record<string, unknown>;
  /** More `node` flags before the CLI, e.g. `--heapsnapshot-signal=SIGUSR2` or `--inspect=127.0.0.1:0`. */
  nodeArgs?: readonly string[];
}

/**
 * Starts the gateway CLI fronting `upstreams` over Streamable HTTP, on an ephemeral port (the testkit's
 * launcher, a member of `children`; its scratch dir removed by `children.stopAll()` too). Fails if the
 * gateway reports that some upstream did not connect.
 */
export async function startGateway(upstreams: Upstream[], options: GatewayOptions = {}): Promise<Gateway> {
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
  children.own(gateway);
  return gateway;
}

/**
 * What a part started, stopped together: `add` a stop function per process or resource as it starts;
 * `run()` calls them all (each once, failures ignored) and resolves when every one settled.
 */
export class Teardown {
  readonly #steps: (() => unknown)[] = [];

  add(step: () => unknown): void {
    this.#steps.push(step);
  }

  async run(): Promise<void> {
    const steps = this.#steps.splice(0);
    await Promise.allSettled(steps.map(async (step) => step()));
  }

  /** Runs `start`; if it throws, stops what it had started before rethrowing. */
  async guard<T>(start: (teardown: Teardown) => Promise<T>): Promise<T> {
    try {
      return await start(this);
    } catch (error) {
      await this.run();
      throw error;
    }
  }
}

/** A testkit upstream, added to `teardown`. */
export async function ownUpstream(spec: UpstreamSpec, teardown: Teardown): Promise<Upstream> {
  const upstream = await startUpstream(spec);
  teardown.add(() => upstream.proc.stop());
  return upstream;
}

/**
 * Starts one gateway per entry of `specs`, all at once, in front of `upstream`, each added to `teardown`;
 * fails (after they all settled, the started ones stopped) if any did not start.
 */
export async function startGateways<K extends string>(
  upstream: Upstream,
  specs: Record<K, GatewayOptions>,
  teardown: Teardown,
): Promise<Record<K, Gateway>> {
  const names = Object.keys(specs) as K[];
  const started = await allStarted(names.map((n) => startGateway([upstream], specs[n])));
  for (const gateway of started) teardown.add(() => gateway.proc.stop());
  return Object.fromEntries(names.map((n, i) => [n, started[i]!])) as Record<K, Gateway>;
}

/** Each gateway's warning kinds (digits masked) → count, by its name. */
export function warningsOf<K extends string>(
  gateways: Record<K, Gateway>,
): Record<K, Record<string, number>> {
  const entries = Object.entries<Gateway>(gateways).map(([k, g]) => [k, Object.fromEntries(g.proc.warnings)]);
  return Object.fromEntries(entries) as Record<K, Record<string, number>>;
}
