import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import {
  decodeFrame,
  errorResponse,
  type Gateway,
  type Identity,
  ListenTracker,
  type Logger,
  openSession,
  parseError,
} from '@switchyard/core';

import type { Drain } from './drain.js';
import type { Limits } from './limits.js';
import { SessionGate } from './session-gate.js';

const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over a readable/writable pair. Unlike a bare framing layer it answers
 * malformed lines with -32700/-32600 instead of dropping them, so a stdio client never hangs on bad input.
 */
export class JsonLineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /**
   * Sees every decoded inbound message before it is dispatched. Returning a promise holds that message
   * back until it settles, and delivers it only if it resolves to true (the hook answered it otherwise).
   */
  onInbound?: (message: unknown) => undefined | Promise<boolean>;
  /** Called once when the transport closes, whoever installed `onclose`. */
  onClosed?: () => void;
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
    else {
      for (const item of decoded.messages) {
        const gate = this.onInbound?.(item);
        if (!gate) this.onmessage?.(item as JSONRPCMessage);
        else
          void gate.then(
            (deliver) => {
              if (deliver && !this.#closed) this.onmessage?.(item as JSONRPCMessage);
            },
            (error: Error) => this.onerror?.(error),
          );
      }
    }
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
    this.onClosed?.();
  }
}

/**
 * Serves one downstream session on this process's stdin/stdout, in whichever era the client opens with:
 * the SDK's `serveStdio` pins an instance per connection (a legacy `initialize` or a modern request).
 * `closed` resolves when stdin ends. With `shared`, the session's requests count against
 * `limits.concurrentPerSession` (`busy`) and a drain: refused while draining (`shutting_down`), waited
 * for while in flight.
 */
export async function startStdioListener(
  gateway: Gateway,
  logger: Logger,
  identity: Identity,
  shared?: { limits: Limits; drain: Drain },
): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
  const session = openSession(gateway, { transport: 'stdio', id: 'stdio', identity });
  const transport = new JsonLineTransport(process.stdin, process.stdout);
  const listens = new ListenTracker(gateway, session.sink, logger.child('stdio'));
  transport.onInbound = (message) => {
    // A listen is served only once its subscriptions are held, and refused if one is forbidden.
    const verdict = listens.observe(message);
    if (!verdict) return undefined;
    const id = (message as { id: string | number }).id;
    return verdict.then(async (refused) => {
      if (!refused) return listens.holding(id); // not if it was cancelled meanwhile
      await transport.send(errorResponse(id, refused) as unknown as JSONRPCMessage);
      return false;
    });
  };
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  transport.onClosed = () => {
    void session.close().finally(resolveClosed);
  };
  const gated = shared
    ? new SessionGate(transport, {
        limit: shared.limits.concurrentPerSession,
        drain: shared.drain,
        transport: 'stdio',
      })
    : transport;
  const handle = serveStdio(session.build, {
    transport: session.wrap(gated),
    onerror: (error) => logger.debug('stdio session error', { error: error.message }),
  });
  return { closed, close: () => handle.close() };
}
