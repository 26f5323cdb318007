import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ManagedProcess } from '@switchyard/testkit';
import { type Cleanup, GATEWAY_CLI, spawnGateway } from './harness.js';

/** Accumulates a text stream and lets a test wait for a pattern in it (no fixed sleeps). */
export class TextSink {
  #text = '';
  #waiters = new Set<() => void>();

  constructor(stream: NodeJS.ReadableStream | null | undefined) {
    stream?.setEncoding?.('utf8');
    stream?.on('data', (chunk: string | Buffer) => {
      this.#text += chunk.toString();
      for (const waiter of this.#waiters) waiter();
    });
  }

  get text(): string {
    return this.#text;
  }

  waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this.#text.match(pattern);
        if (!match) return;
        done();
        resolve(match);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${pattern} in:\n${this.#text}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }
}

function gatewayArgs(configFile: string, extra: string[] = []): string[] {
  return [GATEWAY_CLI, '--config', configFile, ...extra];
}

/** The v2 SDK client talking to the gateway CLI it spawned as a stdio server; `logs` is the gateway's stderr. */
export async function connectStdio(
  cleanup: Cleanup,
  configFile: string,
  options: { name?: string; args?: string[]; client?: ConstructorParameters<typeof Client>[1] } = {},
): Promise<{ client: Client; transport: StdioClientTransport; logs: TextSink }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: gatewayArgs(configFile, options.args),
    stderr: 'pipe',
  });
  const logs = new TextSink(transport.stderr as NodeJS.ReadableStream | null);
  const client = new Client({ name: options.name ?? 'stdio-test', version: '1.0.0' }, options.client);
  cleanup.add(() => client.close());
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`could not connect to the stdio gateway: ${String(error)}\n${logs.text}`);
  }
  return { client, transport, logs };
}

/** The v1 (legacy) SDK client talking to the gateway CLI over stdio. */
export async function connectStdioV1(
  cleanup: Cleanup,
  configFile: string,
): Promise<{ client: V1Client; logs: TextSink }> {
  const transport = new V1StdioClientTransport({
    command: process.execPath,
    args: gatewayArgs(configFile),
    stderr: 'pipe',
  });
  const logs = new TextSink(transport.stderr as NodeJS.ReadableStream | null);
  const client = new V1Client({ name: 'v1-stdio-test', version: '1.0.0' });
  cleanup.add(() => client.close());
  await client.connect(transport);
  return { client, logs };
}

/** The gateway CLI spawned with raw pipes (see ManagedProcess), to look at exactly what it writes to stdout. */
export interface RawStdioGateway extends ManagedProcess {
  /** Every stdout line so far, verbatim. */
  readonly lines: string[];
  /** Writes one line (a string verbatim, anything else as JSON) to the gateway's stdin. */
  send(message: unknown): void;
  /** Resolves with the first stdout message (parsed) matching `predicate`, waiting for it if needed. */
  waitForMessage(
    predicate: (message: Record<string, unknown>) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
}

/** Spawns the gateway CLI with raw pipes, to look at exactly what it writes to stdout. */
export function spawnStdioGateway(
  cleanup: Cleanup,
  configFile: string,
  args: string[] = [],
  options: { keepChars?: number } = {},
): RawStdioGateway {
  const gw = spawnGateway(cleanup, ['--config', configFile, ...args], { stdin: 'pipe', ...options });
  const lines: string[] = [];
  gw.onLine((line, stream) => {
    if (stream === 'stdout') lines.push(line);
  });
  const parsed = (line: string): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  return Object.assign(gw, {
    lines,
    send(message: unknown) {
      gw.child.stdin?.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    },
    waitForMessage(
      predicate: (message: Record<string, unknown>) => boolean,
      what: string,
      timeoutMs = 10_000,
    ) {
      return gw.waitForLine(
        (line) => {
          const message = parsed(line);
          return message && predicate(message) ? message : undefined;
        },
        { stream: 'stdout', timeoutMs, what },
      );
    },
  });
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
