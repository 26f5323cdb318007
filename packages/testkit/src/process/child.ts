import { type ChildProcess, spawn } from 'node:child_process';
import { LineBuffer, type OutputStream, OutputTail } from './output.js';
import { WarningTally, type WarningTallyOptions } from './warnings.js';

/** How a process ended: its exit code, the signal that ended it, or null when it never started. */
export type ExitStatus = number | NodeJS.Signals | null;

/** Recognizes one line: a value (the line is the one looked for), or undefined; it may throw to give up. */
export type LineMatcher<T> = (line: string) => T | undefined;

export interface SpawnProcessOptions {
  /** Names the process in errors and crash reports, e.g. `gateway`. */
  name: string;
  /** The executable; default this Node binary (then `args` starts with the script). */
  command?: string;
  args?: readonly string[];
  /** Set over this process's environment; a variable set to undefined is left out. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** `pipe` to write to the child's stdin (`child.stdin`); default `ignore`. */
  stdin?: 'pipe' | 'ignore';
  /** Characters of each stream kept for `stdout()`, `stderr()` and line waits (the newest); default 1 MiB. */
  keepChars?: number;
  /** Lines `tail()` keeps; default 40. */
  tailLines?: number;
  /** How `warnings` counts stderr's WARN/ERROR lines. */
  warnings?: WarningTallyOptions;
}

export interface WaitForLineOptions {
  /** Default `stderr`: logs go there (stdout belongs to a stdio server's protocol). */
  stream?: OutputStream;
  /** Default 10 s. */
  timeoutMs?: number;
  /** What the line means, for errors (e.g. `its ready line`). */
  what?: string;
}

/** A child process whose output is drained into bounded buffers, with bounded waits and a reliable stop. */
export interface ManagedProcess {
  readonly name: string;
  /** The Node child (its stdin when spawned with `stdin: 'pipe'`). */
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  /** Resolves once the process has exited and its output is read (or shortly after exit, if a grandchild holds the pipes). */
  readonly exited: Promise<ExitStatus>;
  /**
   * Rejects when the process exits on its own after it was ready (neither `stop()` nor a terminating
   * `signal()` asked it to), with its exit status and last output. Race work that needs the process
   * against it: a request to a dead process is not always refused promptly.
   */
  readonly crashed: Promise<never>;
  /** stderr's WARN/ERROR lines and Node warnings after the process was ready, by kind (see WarningTally). */
  readonly warnings: Map<string, number>;
  running(): boolean;
  /** The kept stdout text (the newest `keepChars`). */
  stdout(): string;
  /** The kept stderr text (the newest `keepChars`). */
  stderr(): string;
  /** The last lines of both streams in arrival order, each tagged `stdout: ` or `stderr: `. */
  tail(): string[];
  /** Calls `listener` with every later complete line; returns the unsubscribe function. */
  onLine(listener: (line: string, stream: OutputStream) => void): () => void;
  /**
   * Resolves with the first line of `options.stream` (kept ones included) that `match` recognizes; rejects
   * with the last output when the process exits first, `timeoutMs` passes, or the matcher throws.
   */
  waitForLine(match: RegExp, options?: WaitForLineOptions): Promise<RegExpMatchArray>;
  waitForLine<T>(match: LineMatcher<T>, options?: WaitForLineOptions): Promise<T>;
  /**
   * Sends `signal` if the process runs. SIGSTOP/SIGCONT are remembered (stop() resumes a paused child);
   * after SIGTERM, SIGINT, SIGQUIT or SIGKILL its exit is expected, not a crash.
   */
  signal(signal: NodeJS.Signals): void;
  /**
   * SIGCONT if paused, SIGTERM, then SIGKILL once `graceMs` (default 5 s) has passed; resolves with the exit
   * status once the process is gone. Idempotent.
   */
  stop(options?: { graceMs?: number }): Promise<ExitStatus>;
}

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
    const line = match instanceof RegExp ? `a line matching ${match}` : 'the awaited line';
    const what =
      options.what === undefined ? `${line} on ${stream}` : `${options.what} (${line} on ${stream})`;
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

/** What marks a started process ready: a line on one of its streams, within a bounded time. */
export interface ReadyLine<T> {
  /** A pattern (the value is its match) or a matcher (the value is what it returns; it may throw to fail the start). */
  line: RegExp | LineMatcher<T>;
  /** Default `stderr`. */
  stream?: OutputStream;
  /** Default 20 s. */
  timeoutMs?: number;
}

export interface StartProcessOptions<T> extends SpawnProcessOptions {
  ready: ReadyLine<T>;
}

export interface StartedProcess<T> {
  proc: ManagedProcess;
  /** What the ready line gave (the match of a pattern). */
  ready: T;
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
