import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { createDownstreamSession, decodeFrame, type Gateway, parseError } from '@switchyard/core';

const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over a readable/writable pair. Unlike a bare framing layer it answers
 * malformed lines with -32700/-32600 instead of dropping them, so a stdio client never hangs on bad input.
 */
export class JsonLineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #buffer = '';
  #closed = false;
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;

  constructor(input: NodeJS.ReadableStream, output: NodeJS.WritableStream) {
    this.#input = input;
    this.#output = output;
  }

  async start(): Promise<void> {
    this.#input.setEncoding?.('utf8');
    this.#input.on('data', this.#onData);
    this.#input.once('end', () => void this.close());
    this.#input.once('error', (error: Error) => this.onerror?.(error));
  }

  #onData = (chunk: string | Buffer) => {
    this.#buffer += chunk.toString();
    let nl = this.#buffer.indexOf('\n');
    while (nl >= 0) {
      const line = this.#buffer.slice(0, nl).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(nl + 1);
      if (line.trim().length > 0) this.#onLine(line);
      nl = this.#buffer.indexOf('\n');
    }
    if (this.#buffer.length > MAX_LINE_BYTES) {
      this.#buffer = '';
      void this.send(parseError(`message exceeds ${MAX_LINE_BYTES} bytes`) as unknown as JSONRPCMessage);
    }
  };

  #onLine(line: string): void {
    const decoded = decodeFrame(line);
    if ('error' in decoded) void this.send(decoded.error as unknown as JSONRPCMessage);
    else for (const item of decoded.messages) this.onmessage?.(item as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.onclose?.();
  }
}

/** Serves one downstream session on this process's stdin/stdout. `closed` resolves when stdin ends. */
export async function startStdioListener(
  gateway: Gateway,
): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
  const session = createDownstreamSession(gateway, 'stdio', 'stdio');
  const transport = new JsonLineTransport(process.stdin, process.stdout);
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  await session.connect(transport);
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    void session.close().finally(resolveClosed);
  };
  return { closed, close: () => transport.close() };
}
