import type { ChildProcess } from 'node:child_process';
import type { OutputStream } from './output.js';
import type { WarningTallyOptions } from './warnings.js';

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
   * status once the process is gone. Idempotent: later calls share the first one's outcome.
   */
  stop(options?: { graceMs?: number }): Promise<ExitStatus>;
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

export interface RunProcessOptions extends SpawnProcessOptions {
  /** How long the process may run before it is stopped (see `ProcessRun.timedOut`); default 60 s. */
  timeoutMs?: number;
  /** After the timeout: SIGTERM, then SIGKILL once this has passed (see `ManagedProcess.stop`); default 5 s. */
  stopGraceMs?: number;
}

/** How a process run to completion ended. */
export interface ProcessRun {
  /** Its exit code, the signal that ended it, or null when it could not start. */
  status: ExitStatus;
  /** It was still running at `timeoutMs` and was stopped. */
  timedOut: boolean;
  /** Why it could not be spawned (then `status` is null). */
  startError?: Error;
  /** The ended process: its kept output (`stdout()`, `stderr()`, `tail()`). */
  proc: ManagedProcess;
}
