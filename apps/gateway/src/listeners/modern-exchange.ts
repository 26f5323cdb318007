import type { ServerResponse } from 'node:http';
import { type ModernResponse, messageJson } from '@switchyard/core/listener';

/**
 * One 2026-07-28 request's HTTP response: plain JSON when its answer is all there is to say, an SSE
 * stream as soon as something is said before the answer (progress, a log message), the answer its last
 * event — as the specification's Streamable HTTP binding has it and the SDK's per-request transport does.
 * Each message is serialized once, as it is written.
 */
export class ModernExchange {
  readonly #res: ServerResponse;
  #streaming = false;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  /** A notification related to the request: opens the stream if it is the first. */
  notify(method: string, params: Record<string, unknown>): Promise<void> {
    const res = this.#res;
    if (res.writableEnded || res.destroyed) return Promise.resolve();
    if (!this.#streaming) {
      this.#streaming = true;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
    }
    res.write(event({ jsonrpc: '2.0', method, params }));
    return Promise.resolve();
  }

  /**
   * The answer. An error is HTTP 200 like any answer (it is the payload), except the two the HTTP binding
   * gives a status of their own: -32020 (headers disagreeing with the body) and -32021 (a client capability
   * missing), 400 — unless the stream is already open, where all that is left to send is the event.
   */
  finish(response: ModernResponse): void {
    const res = this.#res;
    if (res.writableEnded || res.destroyed) return;
    if (this.#streaming) return void res.end(event(response));
    const code = 'error' in response ? response.error.code : undefined;
    const text = messageJson(response);
    res.writeHead(code === -32020 || code === -32021 ? 400 : 200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }
}

function event(message: unknown): string {
  return `event: message\ndata: ${messageJson(message)}\n\n`;
}
