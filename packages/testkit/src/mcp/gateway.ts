/**
 * The one way tests, benchmarks, soak and conformance start the real Switchyard gateway: its built CLI in
 * a process of its own, on a config written to a scratch dir, listening on an ephemeral loopback port (or
 * on stdio), ready once it says so on stderr within a bounded time, stopped and its dir removed for sure.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from '../process/child.js';
import type { ProcessGroup } from '../process/group.js';
import type { ManagedProcess, SpawnProcessOptions, StartProcessOptions } from '../process/types.js';

export interface GatewayLaunch extends Omit<SpawnProcessOptions, 'name' | 'args'> {
  /** The gateway CLI (`apps/gateway/dist/cli.js`, `import.meta.resolve('switchyard')`'s `./cli.js`). */
  cli: string;
  /**
   * The config. Unless it has `listen`, an HTTP listener on `127.0.0.1:0` path `/mcp` is added (with
   * `stdio: true`, `listen.stdio` instead).
   */
  config: Record<string, unknown>;
  /** Serve stdio (`stdin: 'pipe'`): ready once the CLI says it serves stdio. */
  stdio?: boolean;
  /** Process name in errors (default `gateway`). */
  name?: string;
  /** `node` flags before the CLI (`--cpu-prof`, `--inspect=…`). */
  nodeArgs?: readonly string[];
  /** CLI flags after `--config <file>`. */
  args?: readonly string[];
  /** Fail the start when the gateway reports that some upstream did not connect. */
  requireUpstreams?: boolean;
  /** A group the process joins (its `stopAll()` stops it too, its `crashed` sees it). */
  group?: ProcessGroup;
  /**
   * The ready line's bound; default 60 s (a gateway that spawns stdio upstreams on a loaded 2-core box can
   * take tens of seconds).
   */
  timeoutMs?: number;
}

export interface LaunchedGateway {
  proc: ManagedProcess;
  /** The HTTP endpoint (`http://127.0.0.1:<port>/mcp`); '' when it serves stdio only. */
  url: string;
  /** The admin listener, when the config has one. */
  adminUrl?: string;
  /** Its scratch dir, holding the config: relative paths in plugin options resolve from here. */
  dir: string;
  configFile: string;
  /** Stops the process and removes the dir; idempotent. */
  stop(): Promise<void>;
}

/** Starts the gateway; on any failure before ready the process is stopped and the dir removed. */
export async function launchGateway(launch: GatewayLaunch): Promise<LaunchedGateway> {
  const {
    cli,
    config,
    stdio,
    nodeArgs = [],
    args = [],
    group,
    timeoutMs,
    requireUpstreams,
    ...spawn
  } = launch;
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-gateway-'));
  const configFile = join(dir, 'switchyard.json');
  const listen = stdio ? { stdio: true } : { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };
  const full = { listen, ...config };
  await writeFile(configFile, JSON.stringify(full, null, 2));
  const wantsAdmin = (full.listen as { admin?: unknown }).admin !== undefined;
  let url = '';
  let adminUrl: string | undefined;
  let served = false;
  const options: StartProcessOptions<true> = {
    ...spawn,
    name: launch.name ?? 'gateway',
    args: [...nodeArgs, cli, '--config', configFile, ...args],
    ...(stdio ? { stdin: 'pipe' as const } : {}),
    ready: {
      stream: 'stderr',
      timeoutMs: timeoutMs ?? 60_000,
      line: (line) => {
        if (requireUpstreams && line.includes('some upstreams are not connected')) {
          throw new Error(`gateway could not connect every upstream: ${line}`);
        }
        const admin = /admin listening on (http:\/\/\S+)/.exec(line)?.[1];
        if (admin) adminUrl = admin.replace(/\/+$/, '');
        else url ||= /\blistening on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
        served ||= line.includes('serving MCP on stdio');
        const listening = stdio ? served : url !== '';
        return listening && (!wantsAdmin || adminUrl !== undefined) ? true : undefined;
      },
    },
  };
  let proc: ManagedProcess | undefined;
  const stop = once(async () => {
    await proc?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  try {
    proc = (await (group ? group.start(options) : startProcess(options))).proc;
  } catch (error) {
    await stop();
    throw error;
  }
  return { proc, url, adminUrl, dir, configFile, stop };
}

function once(run: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= run();
    return done;
  };
}
