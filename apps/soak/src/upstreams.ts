/**
 * The upstream MCP servers under test, testkit CLIs with resources, tools and prompts: HTTP ones run as
 * children of this process on a fixed loopback port (so a restart comes back at the same URL), a stdio one
 * is spawned (and respawned after a crash) by the gateway itself. Each can be SIGKILLed, SIGSTOPped and
 * resumed, and reached through the testkit control API to make it emit resource updates.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ControlClient, controlClient } from '@switchyard/testkit';
import { startTestkitHttp, testkitCliPath } from '@switchyard/testkit/mcp';
import { freePort, type ManagedProcess } from '@switchyard/testkit/process';
import { children } from './children.js';

/** What every soak upstream serves. */
export const CATALOG = { resources: 20, tools: 3, prompts: 2 } as const;
const CATALOG_FLAGS = [
  '--resources',
  String(CATALOG.resources),
  '--tools',
  String(CATALOG.tools),
  '--prompts',
  String(CATALOG.prompts),
  '--latency-ms',
  '2',
];

/**
 * The misbehaving upstream's modes (testkit `--misbehave`): noise on every answer (stray and duplicate
 * ids, malformed notifications, 2026-07-28 results without `resultType`) and the tools that spoil one
 * request each (invalid results, a huge result, an HTTP 500 page, a list_changed burst).
 */
export const WILD_MODES = [
  'no-result-type',
  'unknown-ids',
  'duplicate-ids',
  'malformed-notifications',
  'invalid-result',
  'huge-result',
  'http-500',
  'list-changed-burst',
] as const;

export const testkitCli = (): string => testkitCliPath();

export interface SoakUpstream {
  readonly name: string;
  readonly transport: 'http' | 'stdio';
  /** The era the upstream speaks to the gateway. */
  readonly era: 'legacy' | 'modern';
  /** Its `mcpServers` entry (without the soak's common settings). */
  readonly entry: Record<string, unknown>;
  /** The resource every subscribing session follows (the upstream's own URI). */
  readonly watchedUri: string;
  /** The control API of the process running now (waits for a restarted stdio child to publish it). */
  control(): Promise<ControlClient>;
  kill(): Promise<void>;
  /** Brings it back after kill(); for stdio the gateway respawns it, this waits for the new child. */
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
  /** SIGCONT if paused (cleanup paths). */
  ensureRunning(): void;
}

/** A testkit over Streamable HTTP in its own process, on a fixed port. */
export class HttpUpstream implements SoakUpstream {
  readonly transport = 'http' as const;
  readonly name: string;
  readonly era: 'legacy' | 'modern';
  readonly watchedUri: string;
  readonly #port: number;
  #proc: ManagedProcess | undefined;
  #control: ControlClient | undefined;
  #paused = false;
  readonly #extraArgs: readonly string[];

  private constructor(name: string, era: 'legacy' | 'modern', port: number, extraArgs: readonly string[]) {
    this.name = name;
    this.era = era;
    this.#port = port;
    this.#extraArgs = extraArgs;
    this.watchedUri = `test://${name}/r/0`;
  }

  /** A testkit server; `extraArgs` add to its command line (e.g. `--misbehave` modes). */
  static async start(
    name: string,
    era: 'legacy' | 'modern',
    extraArgs: readonly string[] = [],
  ): Promise<HttpUpstream> {
    // A port that was free a moment ago: the upstream keeps it for the whole run.
    const upstream = new HttpUpstream(name, era, await freePort(), extraArgs);
    await upstream.restart();
    return upstream;
  }

  /** The misbehaving upstream (2026-07-28 and 2025 at one URL, every `WILD_MODES` mode on). */
  static startWild(name: string): Promise<HttpUpstream> {
    return HttpUpstream.start(
      name,
      'modern',
      WILD_MODES.flatMap((mode) => ['--misbehave', mode]),
    );
  }

  get entry(): Record<string, unknown> {
    return { url: `http://127.0.0.1:${this.#port}/mcp` };
  }

  async control(): Promise<ControlClient> {
    if (!this.#control) throw new Error(`${this.name} is not running`);
    return this.#control;
  }

  async kill(): Promise<void> {
    const proc = this.#proc;
    this.#proc = undefined;
    this.#control = undefined;
    if (!proc) return;
    proc.signal('SIGKILL');
    await proc.exited;
  }

  async restart(): Promise<void> {
    const args = ['--host', '127.0.0.1', '--port', String(this.#port), '--name', this.name];
    if (this.era === 'modern') args.push('--modern');
    args.push(...CATALOG_FLAGS, ...this.#extraArgs);
    // The port may linger a moment after a SIGKILL: retry a few times.
    let lastError: unknown;
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        const { proc, controlUrl } = await startTestkitHttp({
          group: children,
          name: `upstream ${this.name}`,
          args,
        });
        this.#proc = proc;
        this.#paused = false;
        this.#control = controlClient(String(controlUrl));
        return;
      } catch (error) {
        lastError = error;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
    throw lastError;
  }

  pause(): void {
    this.#proc?.signal('SIGSTOP');
    this.#paused = true;
  }

  resume(): void {
    this.#proc?.signal('SIGCONT');
    this.#paused = false;
  }

  ensureRunning(): void {
    if (this.#paused) this.resume();
  }
}

/** A testkit over stdio, spawned by the gateway; found among the gateway's children by its `--name`. */
export class StdioUpstream implements SoakUpstream {
  readonly transport = 'stdio' as const;
  readonly era = 'legacy' as const;
  readonly name: string;
  readonly watchedUri: string;
  readonly entry: Record<string, unknown>;
  readonly #controlFile: string;
  readonly #gatewayPid: () => number | undefined;
  #killedControlUrl: string | undefined;
  #pausedPid: number | undefined;

  constructor(name: string, dir: string, gatewayPid: () => number | undefined) {
    this.name = name;
    this.watchedUri = `test://${name}/r/0`;
    this.#controlFile = join(dir, `${name}.control`);
    this.#gatewayPid = gatewayPid;
    this.entry = {
      command: process.execPath,
      args: [testkitCli(), '--stdio', '--name', name, ...CATALOG_FLAGS, '--control-file', this.#controlFile],
    };
  }

  /** The pid of the gateway's child serving this upstream, if there is one right now. */
  pid(): number | undefined {
    const parent = this.#gatewayPid();
    if (parent === undefined) return undefined;
    for (const pid of childrenOf(parent)) {
      const args = cmdline(pid);
      const at = args.indexOf('--name');
      if (at >= 0 && args[at + 1] === this.name) return pid;
    }
    return undefined;
  }

  async control(): Promise<ControlClient> {
    for (let i = 0; i < 100; i++) {
      const url = await readFile(this.#controlFile, 'utf8').catch(() => '');
      if (url !== '' && url !== this.#killedControlUrl) return controlClient(url.trim());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${this.name}: no control URL in ${this.#controlFile}`);
  }

  async kill(): Promise<void> {
    const pid = this.pid();
    if (pid === undefined) throw new Error(`${this.name}: the gateway's child process was not found`);
    this.#killedControlUrl = await readFile(this.#controlFile, 'utf8').catch(() => undefined);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 50 && existsSync(`/proc/${pid}`) && !isZombie(pid); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async restart(): Promise<void> {
    // The gateway respawns the child on its own; the new one writes a new control URL.
    await this.control();
  }

  pause(): void {
    const pid = this.pid();
    if (pid === undefined) throw new Error(`${this.name}: the gateway's child process was not found`);
    process.kill(pid, 'SIGSTOP');
    this.#pausedPid = pid;
  }

  resume(): void {
    if (this.#pausedPid !== undefined) {
      try {
        process.kill(this.#pausedPid, 'SIGCONT');
      } catch {}
    }
    this.#pausedPid = undefined;
  }

  ensureRunning(): void {
    this.resume();
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
  } catch {}
  return out;
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
