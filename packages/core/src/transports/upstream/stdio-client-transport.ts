import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import spawn from 'cross-spawn';
import { OWN_GROUP, stopChild, trackChild } from './child-processes.js';
import type { InboundFaults, UpstreamClientTransport } from './faults.js';
import { LineReader } from './line-reader.js';

export interface StdioServerParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
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
  #child: ChildProcess | undefined;
  #closing: Promise<void> | undefined;

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
      const child = spawn(command, args, {
        env,
        cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
        ...OWN_GROUP,
      });
      this.#child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        trackChild(child);
        resolve();
      });
      child.once('close', () => {
        if (this.#child === child) this.#child = undefined;
        this.#reader.clear();
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#reader.push(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.pipe(this.#stderr);
    });
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
        if (error) reject(error);
      });
      if (ok) resolve();
      else stdin.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    const child = this.#child;
    this.#closing ??= child ? stopChild(child) : Promise.resolve();
    return this.#closing;
  }
}
