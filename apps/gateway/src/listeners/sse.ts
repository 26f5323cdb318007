import type { ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

export const KEEP_ALIVE_MS = 25_000;

/**
 * Whether a client of this protocol version expects a priming event (an id with empty data): the fix
 * shipped with 2025-11-25 (SEP-1699); older clients may choke on an event without data. The same test
 * as the SDK's server transport: a supported version, and at least 2025-11-25.
 */
export function expectsPriming(version: string | undefined): boolean {
  return version !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(version) && version >= '2025-11-25';
}

export function sseHeaders(sessionId: string) {
  return {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'mcp-session-id': sessionId,
  };
}

/** One live SSE connection (a POST response or a GET), with keep-alive comments while it is open. */
export class SseChannel {
  readonly res: ServerResponse;
  readonly #keepAlive: NodeJS.Timeout;

  constructor(res: ServerResponse, sessionId: string, keepAliveMs = KEEP_ALIVE_MS) {
    this.res = res;
    if (!res.headersSent) {
      res.writeHead(200, sseHeaders(sessionId));
      res.flushHeaders();
    }
    // A comment line now and then keeps proxies and idle timers from cutting a quiet stream.
    this.#keepAlive = setInterval(() => this.#write(': keep-alive\n\n'), keepAliveMs);
    this.#keepAlive.unref();
    res.once('close', () => clearInterval(this.#keepAlive));
  }

  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  /** An id with empty data and the reconnection delay: the client can resume from here (SEP-1699). */
  prime(id: string, retryMs: number): void {
    this.#write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** A new reconnection delay for the client (an SSE block with only `retry`, which dispatches no event). */
  retry(retryMs: number): void {
    this.#write(`retry: ${retryMs}\n\n`);
  }

  event(id: string, data: string): void {
    this.#write(`id: ${id}\nevent: message\ndata: ${data}\n\n`);
  }

  end(): void {
    clearInterval(this.#keepAlive);
    if (this.open) this.res.end();
  }

  #write(text: string): void {
    if (this.open) this.res.write(text);
  }
}
