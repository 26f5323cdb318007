import { type ChildProcess, spawn } from 'node:child_process';
import { LineBuffer, type OutputStream, OutputTail } from './output.js';
import type {
  ExitStatus,
  LineMatcher,
  ManagedProcess,
  ProcessRun,
  ReadyLine,
  RunProcessOptions,
  SpawnProcessOptions,
  StartedProcess,
  StartProcessOptions,
  WaitForLineOptions,
} from './types.js';
import { WarningTally } from './warnings.js';

const DEFAULT_KEEP_CHARS = 1024 * 1024;
const DEFAULT_TAIL_LINES = 40;
const DEFAULT_WAIT_MS = 10_000;
const DEFAULT_STOP_GRACE_MS = 5_000;
/** How long after exit the output may still be arriving (a grandchild can hold the pipes open). */
const DRAIN_AFTER_EXIT_MS = 1_000;
const EXIT_SIGNALS = new Set<NodeJS.Signals>(['SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGKILL']);

/** Every managed child still running: killed synchronously if this process exits first. */
const live = new Set<ManagedChild>();
let sweepInstalled = false;

function installExitSweep(): void {
  if (sweepInstalled) return;
  sweepInstalled = true;
  // 'exit' handlers must be synchronous: no grace here, SIGCONT so a paused child can take the SIGKILL.
  process.on('exit', () => {
    for (const managed of live) {
      if (!managed.running()) continue;
      managed.child.kill('SIGCONT');
      managed.child.kill('SIGKILL');
    }
  });
}

function describeExit(status: ExitStatus): string {
  return status === null ? 'could not start' : `exited (${status})`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The ManagedProcess implementation; `awaitReady` is for startProcess only. */
export class ManagedChild implements ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<ExitStatus>;
  readonly crashed: Promise<never>;
  readonly #output: Record<OutputStream, LineBuffer>;
  readonly #tail: OutputTail;
  readonly #tally: WarningTally;
  readonly #listeners = new Set<(line: string, stream: OutputStream) => void>();
  readonly #onEnd = new Set<(status: ExitStatus) => void>();
  #ended: { status: ExitStatus } | undefined;
  #spawnError: Error | undefined;
  #ready: boolean;
  #exitExpected = false;
  #paused = false;
  #stopped: Promise<ExitStatus> | undefined;

  constructor(options: SpawnProcessOptions, ready: boolean) {
    this.name = options.name;
    this.#ready = ready;
    const keep = options.keepChars ?? DEFAULT_KEEP_CHARS;
    this.#output = { stdout: new LineBuffer(keep), stderr: new LineBuffer(keep) };
    this.#tail = new OutputTail(options.tailLines ?? DEFAULT_TAIL_LINES);
    this.#tally = new WarningTally(options.warnings);
    this.child = spawn(options.command ?? process.execPath, options.args ?? [], {
      cwd: options.cwd,
      env: options.env === undefined ? process.env : { ...process.env, ...options.env },
      stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    });
    installExitSweep();
    live.add(this);
    // Both pipes are always drained, so a chatty child never blocks on a full pipe.
    for (const stream of ['stdout', 'stderr'] as const) {
      const readable = this.child[stream];
      readable?.setEncoding('utf8');
      readable?.on('data', (chunk: string) => this.#lines(stream, this.#output[stream].push(chunk)));
      readable?.on('end', () => this.#lines(stream, this.#output[stream].end()));
    }
    this.child.stdin?.on('error', () => {}); // EPIPE once the child has gone
    this.exited = new Promise<ExitStatus>((resolve) => {
      const end = (status: ExitStatus): void => {
        if (this.#ended !== undefined) return;
        this.#ended = { status };
        live.delete(this);
        for (const notify of this.#onEnd) notify(status);
        this.#onEnd.clear();
        resolve(status);
      };
      this.child.once('close', (code: number | null, signal: NodeJS.Signals | null) => end(code ?? signal));
      this.child.once('exit', (code, signal) => {
        setTimeout(() => end(code ?? signal), DRAIN_AFTER_EXIT_MS).unref();
      });
      this.child.on('error', (error) => {
        if (this.child.pid !== undefined) return; // a failed kill(): the process still runs
        this.#spawnError = error;
        end(null);
      });
    });
    this.crashed = this.exited.then((status) => {
      if (this.#exitExpected || !this.#ready) return new Promise<never>(() => {});
      throw new Error(`${this.name} exited unexpectedly (${status})${this.#lastOutput()}`);
    });
    this.crashed.catch(() => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why the process could not be spawned, if it could not. */
  get startError(): Error | undefined {
    return this.#spawnError;
  }

  get warnings(): Map<string, number> {
    return this.#tally.counts;
  }

  running(): boolean {
    return this.#ended === undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  stdout(): string {
    return this.#output.stdout.text();
  }

  stderr(): string {
    return this.#output.stderr.text();
  }

  tail(): string[] {
    return this.#tail.lines();
  }

  onLine(listener: (line: string, stream: OutputStream) => void): () => void {
    const own = (line: string, stream: OutputStream): void => listener(line, stream);
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  waitForLine(match: RegExp, options?: WaitForLineOptions): Promise<RegExpMatchArray>;
  waitForLine<T>(match: LineMatcher<T>, options?: WaitForLineOptions): Promise<T>;
  waitForLine<T>(match: RegExp | LineMatcher<T>, options: WaitForLineOptions = {}): Promise<unknown> {
    return this.#wait(match, options);
  }

  /** Like waitForLine, but marks the process ready on the matching line itself (before any later line). */
  awaitReady<T>(match: RegExp | LineMatcher<T>, options: WaitForLineOptions): Promise<T> {
    return this.#wait(match, options, () => {
      this.#ready = true;
    }) as Promise<T>;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.running()) return;
    if (signal === 'SIGSTOP') this.#paused = true;
    if (signal === 'SIGCONT') this.#paused = false;
    if (EXIT_SIGNALS.has(signal)) this.#exitExpected = true;
    this.child.kill(signal);
  }

  stop(options: { graceMs?: number } = {}): Promise<ExitStatus> {
    this.#exitExpected = true;
    this.#stopped ??= (async () => {
      if (!this.running()) return this.exited;
      if (this.#paused) this.signal('SIGCONT');
      this.child.kill('SIGTERM');
      const force = setTimeout(() => {
        if (this.running()) this.child.kill('SIGKILL');
      }, options.graceMs ?? DEFAULT_STOP_GRACE_MS);
      try {
        return await this.exited;
      } finally {
        clearTimeout(force);
      }
    })();
    return this.#stopped;
  }

  #lines(stream: OutputStream, lines: string[]): void {
    for (const line of lines) {
      this.#tail.add(stream, line);
      if (this.#ready && stream === 'stderr') this.#tally.add(line);
      for (const listener of [...this.#listeners]) listener(line, stream);
    }
  }

  #lastOutput(): string {
    const tail = this.tail();
    return tail.length === 0 ? '' : `; last output:\n    ${tail.join('\n    ')}`;
  }

  #fail(message: string): Error {
    return new Error(`${this.name}: ${message}${this.#lastOutput()}`);
  }

  #wait<T>(
    match: RegExp | LineMatcher<T>,
    options: WaitForLineOptions,
    onMatch?: () => void,
  ): Promise<unknown> {
    const stream = options.stream ?? 'stderr';
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    const which = `${match instanceof RegExp ? `a line matching ${match}` : 'the awaited line'} on ${stream}`;
    const what = options.what === undefined ? which : `${options.what} (${which})`;
    const recognize: LineMatcher<unknown> =
      match instanceof RegExp ? (line) => line.match(match) ?? undefined : match;
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.#listeners.delete(listener);
        this.#onEnd.delete(onEnd);
        settle();
      };
      const check = (line: string): void => {
        let value: unknown;
        try {
          value = recognize(line);
        } catch (error) {
          finish(() => reject(this.#fail(errorMessage(error))));
          return;
        }
        if (value === undefined) return;
        onMatch?.();
        finish(() => resolve(value));
      };
      const listener = (line: string, from: OutputStream): void => {
        if (from === stream && !done) check(line);
      };
      const onEnd = (status: ExitStatus): void => {
        const why =
          this.#spawnError === undefined
            ? describeExit(status)
            : `failed to start: ${this.#spawnError.message}`;
        finish(() => reject(this.#fail(`${why} before ${what}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(this.#fail(`timed out after ${timeoutMs} ms waiting for ${what}`))),
        timeoutMs,
      );
      for (const line of this.#output[stream].lines()) {
        check(line);
        if (done) return;
      }
      if (this.#ended !== undefined) {
        onEnd(this.#ended.status);
        return;
      }
      this.#listeners.add(listener);
      this.#onEnd.add(onEnd);
    });
  }
}

/**
 * Spawns a child (by default `node args…`) and drains its output; nothing is awaited.
 *
 * @example
 * const check = spawnProcess({ name: 'check', args: [cli, 'check', '--config', file] });
 * expect(await check.exited).toBe(0);
 */
export function spawnProcess(options: SpawnProcessOptions): ManagedProcess {
  return new ManagedChild(options, true);
}

const DEFAULT_RUN_MS = 60_000;

/**
 * Runs a command to completion (by default `node args…`): resolves once it has exited, or once it was
 * stopped for running past `timeoutMs`, with its exit status and its kept output. Never rejects: a command
 * that cannot be spawned ends with status null and `startError`.
 *
 * @example
 * const { status, timedOut, proc } = await runProcess({ name: 'list', args: [cli, 'list'], timeoutMs: 30_000 });
 * if (status !== 0) throw new Error(`list ${timedOut ? 'timed out' : `exited ${status}`}: ${proc.tail().join('\n')}`);
 */
export async function runProcess(options: RunProcessOptions): Promise<ProcessRun> {
  // Not marked ready: its exit is the end of the run, never a crash.
  const proc = new ManagedChild(options, false);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.stop({ graceMs: options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS });
  }, options.timeoutMs ?? DEFAULT_RUN_MS);
  try {
    const status = await proc.exited;
    const startError = proc.startError;
    return { status, timedOut, proc, ...(startError === undefined ? {} : { startError }) };
  } finally {
    clearTimeout(timer);
  }
}

const DEFAULT_READY_MS = 20_000;

/**
 * Spawns a child and resolves once it prints its ready line. When it exits first, stays silent past the
 * timeout, or the matcher throws, the child is killed and the error names it, why, and its last output.
 *
 * @example
 * const { proc, ready } = await startProcess({
 *   name: 'gateway',
 *   args: [gatewayCli, '--config', file],
 *   ready: { line: /listening on (http:\/\/\S+)/ },
 * });
 * const url = ready[1];
 */
export async function startProcess<T = RegExpMatchArray>(
  options: StartProcessOptions<T>,
): Promise<StartedProcess<T>> {
  const proc = new ManagedChild(options, false);
  return { proc, ready: await untilReady(proc, options.ready) };
}

/** Waits for `proc`'s ready line (marking it ready); kills it if that fails. */
export async function untilReady<T>(proc: ManagedChild, ready: ReadyLine<T>): Promise<T> {
  try {
    return await proc.awaitReady(ready.line, {
      stream: ready.stream,
      timeoutMs: ready.timeoutMs ?? DEFAULT_READY_MS,
      what: 'its ready line',
    });
  } catch (error) {
    await proc.stop({ graceMs: 0 });
    throw error;
  }
}
