import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import spawn from 'cross-spawn';
import { OWN_GROUP, stopChild, trackChild } from './child-processes.js';
import type { InboundFaults, UpstreamClientTransport } from './faults.js';
import { LineReader } from './line-reader.js';
import { StderrTail } from './stderr-tail.js';

export interface StdioServerParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** How a spawned server ended by itself (not stopped by the gateway), and the last lines it printed on stderr. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Its last few stderr lines (`StderrTail`), oldest first. */
  stderr: string[];
}

/** Without a guard's limit, a line may be this long (what the SDK's own stdio transport allowed). */
const FALLBACK_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * MCP over a spawned server's stdin/stdout (newline-delimited JSON-RPC), spawned once per connection and
 * probed in place. Unlike the SDK's stdio transport it survives what real servers print: a line that is
 * no JSON (a banner, a debug print) is reported and dropped, and a line over the size limit is discarded
 * as it arrives and fails only the request it answered, instead of closing the connection. The server
 * runs in a process group of its own and is stopped stdin-first, then SIGTERM, then SIGKILL
 * (`stopChild`); it never outlives the gateway.
 */
export class StdioClientTransport implements UpstreamClientTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  faults?: InboundFaults;
  readonly #params: StdioServerParams;
  readonly #stderr = new PassThrough();
  readonly #reader: LineReader;
  readonly #tail = new StderrTail();
  #child: ChildProcess | undefined;
  #closing: Promise<void> | undefined;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Its stdin or stdout is gone: it is exiting, or will be soon. */
  #broken = false;
  /** It was ending by itself before anyone closed the transport (the SDK does, as a handshake fails). */
  #endedFirst = false;
  /** Resolves once the process has exited and its stdio has closed (then its stderr is all read). */
  readonly #closed: Promise<void>;
  #markClosed!: () => void;

  constructor(params: StdioServerParams) {
    this.#params = params;
    this.#reader = new LineReader(
      {
        line: (text) => this.#line(text),
        oversized: (id, bytes, hasMethod) => {
          if (this.faults) this.faults.oversized(id, bytes, hasMethod);
          else this.onerror?.(new Error(`discarded a stdout line of ${bytes} bytes (over the limit)`));
        },
      },
      () => this.faults?.maxBytes() ?? FALLBACK_MAX_LINE_BYTES,
    );
    this.#closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
  }

  /** The server's stderr (available before start, so nothing it prints early is lost). */
  get stderr(): NodeJS.ReadableStream {
    return this.#stderr;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error('StdioClientTransport already started');
    const { command, args, env, cwd } = this.#params;
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(command, args, {
          env,
          cwd,
          stdio: ['pipe', 'pipe', 'pipe'],
          windowsHide: true,
          ...OWN_GROUP,
        });
      } catch (error) {
        // Node throws rather than emits for some causes (a cwd that is a file: ENOTDIR).
        throw spawnError(error as Error, cwd);
      }
      this.#child = child;
      child.once('error', (cause) => {
        const error = spawnError(cause, cwd);
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        trackChild(child);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
      });
      child.once('close', () => {
        if (this.#child === child) this.#child = undefined;
        this.#reader.clear();
        this.#markClosed();
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => {
        this.#broken = true;
        this.onerror?.(error);
      });
      child.stdout?.on('data', (chunk: Buffer) => this.#reader.push(chunk));
      child.stdout?.once('end', () => {
        this.#broken = true;
      });
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.on('data', (chunk: Buffer) => this.#tail.push(chunk));
      child.stderr?.pipe(this.#stderr);
    });
  }

  /**
   * How the process ended by itself, once it has: waits up to `withinMs` for it to exit and its stderr to
   * be read when its pipes are gone already (a failed write, stdout at its end), else resolves at once.
   * Undefined while it runs, or when it was stopped (`close`) before it began to end.
   */
  async exited(withinMs: number): Promise<ProcessExit | undefined> {
    if (this.#closing && !this.#endedFirst) return undefined;
    if (this.#exit === undefined && !this.#broken) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, withinMs);
    });
    try {
      await Promise.race([this.#closed, waited]);
    } finally {
      clearTimeout(timer);
    }
    const exit = this.#exit;
    return exit && { ...exit, stderr: this.#tail.lines() };
  }

  #line(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      if (this.faults) this.faults.unparsable(text, 'a stdout line');
      else this.onerror?.(new Error('dropped a stdout line that is not JSON'));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closing) throw new SdkError(SdkErrorCode.NotConnected, 'Not connected');
    return new Promise((resolve, reject) => {
      const ok = stdin.write(`${JSON.stringify(message)}\n`, (error) => {
        if (!error) return;
        this.#broken = true;
        reject(error);
      });
      if (ok) resolve();
      else stdin.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    const child = this.#child;
    if (!this.#closing) this.#endedFirst = this.#broken || this.#exit !== undefined;
    this.#closing ??= child ? stopChild(child) : Promise.resolve();
    return this.#closing;
  }
}

/** A failed spawn, naming a `cwd` that is not a folder: Node says only `spawn node ENOENT` then. */
function spawnError(error: Error, cwd: string | undefined): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (cwd === undefined || (code !== 'ENOENT' && code !== 'ENOTDIR')) return error;
  let problem: string;
  try {
    if (statSync(cwd).isDirectory()) return error;
    problem = 'is not a folder';
  } catch {
    problem = 'does not exist';
  }
  return new Error(`its cwd ${cwd} ${problem} (${error.message})`, { cause: error });
}
