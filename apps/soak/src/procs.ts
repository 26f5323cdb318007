/**
 * Child processes of the soak run (testkit upstreams and the gateway): spawning, waiting for a ready line
 * with a bounded timeout, signals, and guaranteed cleanup. Every child goes into one registry; `stopAll()`
 * runs from `main`'s finally and on SIGINT/SIGTERM (stopped children get SIGCONT first, so that SIGTERM can
 * reach them), and a synchronous SIGKILL sweep runs on process 'exit'.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
const TAIL_LINES = 60;

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Last lines of stdout/stderr (for error reports). */
  tail(): string[];
  /** Every stderr line after ready goes here too (e.g. to count the gateway's warnings). */
  onLine?: (line: string) => void;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string | null>;
  running(): boolean;
  /** Sends a signal; SIGSTOP/SIGCONT are remembered so cleanup can resume a stopped child. */
  signal(signal: NodeJS.Signals): void;
  /** SIGCONT if stopped, SIGTERM, then SIGKILL after a bounded wait; resolves once the process is gone. */
  stop(): Promise<void>;
}

const registry = new Set<ManagedProcess>();
const tempDirs = new Set<string>();
let handlersInstalled = false;

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Installs the exit sweep and the SIGINT/SIGTERM handler (`onInterrupt` stops the run first). */
export function installCleanup(onInterrupt: (signal: string) => Promise<void>): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const p of registry) {
      if (!isRunning(p.child)) continue;
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n[soak] ${signal}: stopping ${registry.size} child process(es)\n`);
      void onInterrupt(signal)
        .catch(() => {})
        .finally(() => void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143)));
    });
  }
}

/** Stops every registered child and removes the temp dirs (idempotent). */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...registry].map((p) => p.stop()));
  await Promise.allSettled([...tempDirs].map((d) => rm(d, { recursive: true, force: true })));
  tempDirs.clear();
}

export interface SpawnOptions<T> {
  name: string;
  script: string;
  args: string[];
  readyStream: 'stdout' | 'stderr';
  /** Returns a value once `line` is the ready line (the last one needed); may throw to fail the start. */
  ready: (line: string) => T | undefined;
  timeoutMs?: number;
}

/** Spawns `node script args…` and resolves once its ready line appears (bounded by a timeout). */
export function spawnNode<T>(options: SpawnOptions<T>): Promise<{ proc: ManagedProcess; value: T }> {
  const child = spawn(process.execPath, [options.script, ...options.args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stopped = false;
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal));
    child.once('error', () => resolve(child.exitCode));
  });
  const proc: ManagedProcess = {
    name: options.name,
    child,
    pid: child.pid ?? -1,
    tail: () => [...lines],
    exited,
    running: () => isRunning(child),
    signal(signal) {
      if (!isRunning(child)) return;
      if (signal === 'SIGSTOP') stopped = true;
      if (signal === 'SIGCONT') stopped = false;
      child.kill(signal);
    },
    async stop() {
      if (isRunning(child)) {
        if (stopped) proc.signal('SIGCONT');
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const gone = await Promise.race([
          exited.then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS);
          }),
        ]);
        clearTimeout(timer);
        if (!gone && isRunning(child)) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      registry.delete(proc);
    },
  };
  registry.add(proc);
  void exited.then(() => registry.delete(proc));

  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${options.name}: ${message}\n  last output:\n    ${lines.join('\n    ')}`));
    };
    const timeoutMs = options.timeoutMs ?? READY_TIMEOUT_MS;
    const timer = setTimeout(() => fail(`not ready within ${timeoutMs} ms`), timeoutMs);
    const onLine = (stream: 'stdout' | 'stderr', line: string): void => {
      lines.push(`${stream}: ${line}`);
      if (lines.length > TAIL_LINES) lines.shift();
      if (settled) {
        if (stream === 'stderr') proc.onLine?.(line);
        return;
      }
      if (stream !== options.readyStream) return;
      let value: T | undefined;
      try {
        value = options.ready(line);
      } catch (error) {
        fail(error instanceof Error ? error.message : String(error));
        return;
      }
      if (value === undefined) return;
      settled = true;
      clearTimeout(timer);
      resolve({ proc, value });
    };
    // Both pipes are always drained, so a chatty child never blocks on a full pipe.
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (l) =>
      onLine('stdout', l),
    );
    createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (l) =>
      onLine('stderr', l),
    );
    child.once('error', (error) => fail(`failed to spawn: ${error.message}`));
    void exited.then((code) => fail(`exited (${code}) before it was ready`));
  });
}

/** Resident set size (MiB) of a process, from /proc/PID/status (Linux); undefined elsewhere or when gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** A fresh temporary directory, removed by `stopAll()`. */
export async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-soak-'));
  tempDirs.add(dir);
  return dir;
}
