/**
 * Child processes of the benchmark (testkit upstreams and gateways): spawning, waiting for their ready
 * line with a bounded timeout, and guaranteed cleanup. Every child goes into one registry; `stopAll()` is
 * called from `main`'s finally, on SIGINT/SIGTERM, and a synchronous SIGKILL sweep runs on process 'exit'
 * so nothing outlives the bench (short of the bench itself being SIGKILLed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
const TAIL_LINES = 40;
/** Gateway log lines at WARN/ERROR level, and Node process warnings (`(node:PID) XyzWarning: …`). */
const WARNING_LINE = /\b(WARN|ERROR)\b|Warning: /;

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Last lines of stdout/stderr (for error reports). */
  tail(): string[];
  /**
   * WARN/ERROR log lines and Node warnings seen on stderr after the process became ready, grouped by the
   * line with digits masked (so repeats of one warning count as one kind): masked line → occurrences.
   */
  readonly warnings: Map<string, number>;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string | null>;
  /** SIGTERM, then SIGKILL after a bounded wait; resolves once the process is gone. */
  stop(): Promise<void>;
}

const registry = new Set<ManagedProcess>();
const tempDirs = new Set<string>();
let handlersInstalled = false;
let interrupted = false;

let reportCrash: (error: Error) => void = () => {};
/**
 * Rejects as soon as any child exits on its own after it was ready. The benchmarks race against it, because
 * a request in flight to a process that died is not always rejected promptly (the SDK client can wait for
 * its request timeout).
 */
export const childCrashed: Promise<never> = new Promise<never>((_, reject) => {
  reportCrash = reject;
});
childCrashed.catch(() => {});

/** True once SIGINT/SIGTERM arrived (errors after that are consequences of the shutdown). */
export function isInterrupted(): boolean {
  return interrupted;
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  // Last resort: 'exit' handlers must be synchronous, so no graceful wait here.
  process.on('exit', () => {
    for (const p of registry) if (isRunning(p.child)) p.child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      process.stderr.write(`\n[bench] ${signal}: stopping ${registry.size} child process(es)\n`);
      void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
}

/** Stops every registered child and removes the temp dirs (idempotent). */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...registry].map((p) => p.stop()));
  await Promise.allSettled([...tempDirs].map((d) => rm(d, { recursive: true, force: true })));
  tempDirs.clear();
}

export interface SpawnNodeOptions<T> {
  name: string;
  script: string;
  args: string[];
  nodeArgs?: string[];
  /** Which stream carries the ready line. */
  readyStream: 'stdout' | 'stderr';
  /** Returns a value once `line` is the ready line; may throw to fail the start (e.g. a fatal warning). */
  ready: (line: string) => T | undefined;
  timeoutMs?: number;
}

/** Spawns `node script args…` and resolves once its ready line appears (bounded by a timeout). */
export function spawnNode<T>(options: SpawnNodeOptions<T>): Promise<{ proc: ManagedProcess; value: T }> {
  installHandlers();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...options.args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const warnings = new Map<string, number>();
  let isReady = false;
  let stopping = false;
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal));
    child.once('error', () => resolve(child.exitCode));
  });
  const proc: ManagedProcess = {
    name: options.name,
    child,
    tail: () => [...lines],
    warnings,
    exited,
    stop: async () => {
      stopping = true;
      if (isRunning(child) && child.pid !== undefined) {
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

  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const tail = lines.length > 0 ? `\n  last output:\n    ${lines.join('\n    ')}` : '';
      reject(new Error(`${options.name}: ${message}${tail}`));
    };
    const timeoutMs = options.timeoutMs ?? READY_TIMEOUT_MS;
    const timer = setTimeout(() => fail(`not ready within ${timeoutMs} ms`), timeoutMs);

    const onLine = (stream: 'stdout' | 'stderr', line: string): void => {
      lines.push(`${stream}: ${line}`);
      if (lines.length > TAIL_LINES) lines.shift();
      if (isReady) {
        if (stream === 'stderr' && WARNING_LINE.test(line)) {
          const kind = line.replace(/^\S*\d{4}-\d\d-\d\dT\S+\s+/, '').replace(/\d+/g, '#');
          if (warnings.has(kind) || warnings.size < 100) warnings.set(kind, (warnings.get(kind) ?? 0) + 1);
        }
        return;
      }
      if (stream !== options.readyStream || settled) return;
      let value: T | undefined;
      try {
        value = options.ready(line);
      } catch (error) {
        fail(error instanceof Error ? error.message : String(error));
        return;
      }
      if (value === undefined) return;
      isReady = true;
      settled = true;
      clearTimeout(timer);
      resolve({ proc, value });
    };
    // Both pipes are always drained, so a chatty child can never block on a full pipe.
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (l) =>
      onLine('stdout', l),
    );
    createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (l) =>
      onLine('stderr', l),
    );
    child.once('error', (error) => fail(`failed to spawn: ${error.message}`));
    void exited.then((code) => {
      if (!isReady) {
        fail(`exited (${code}) before it was ready`);
      } else if (!stopping) {
        reportCrash(
          new Error(
            `${options.name} exited unexpectedly (${code}); last output:\n    ${lines.join('\n    ')}`,
          ),
        );
      }
    });
  });
}

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) a child has used so far, from /proc/PID/stat (Linux; 10 ms resolution);
 * undefined where /proc is unavailable.
 */
export function cpuTimeMs(proc: ManagedProcess): number | undefined {
  const pid = proc.child.pid;
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" closing the command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set size (MiB) of a child, from /proc/PID/status (Linux); undefined elsewhere. */
export function rssMiB(proc: ManagedProcess): number | undefined {
  const pid = proc.child.pid;
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** A fresh temporary directory, removed by `stopAll()`. */
export async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-bench-'));
  tempDirs.add(dir);
  return dir;
}
