import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

type RequestId = string | number;

const KEEP_ALIVE_MS = 25_000;

interface PendingPost {
  res: ServerResponse;
  /** Ids of requests in this POST still waiting for their response. */
  waiting: Set<RequestId>;
  /** Responses collected while answering as JSON. */
  responses: JSONRPCMessage[];
  batch: boolean;
  sse: boolean;
  acceptsSse: boolean;
}

/**
 * The server side of one legacy Streamable HTTP session, on plain node:http.
 *
 * A POST is answered with `application/json` unless the server sends a notification related to one of
 * its requests first (progress, log messages): then that POST switches to `text/event-stream` and the
 * response follows as the stream's last event. Both forms are what the spec allows; the JSON form keeps
 * the hot path free of SSE framing. Unsolicited messages go to the session's GET stream (dropped, like
 * the SDK does, when none is open). The SDK `Server` on top owns all protocol semantics.
 */
export class SessionHttpTransport implements Transport {
  readonly sessionId: string;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #pending = new Map<RequestId, PendingPost>();
  #stream: ServerResponse | undefined;
  #closed = false;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  async start(): Promise<void> {}

  /** Takes the already-parsed, envelope-checked body of a POST to this session. */
  handlePost(res: ServerResponse, body: JSONRPCMessage | JSONRPCMessage[], acceptsSse: boolean): void {
    const messages = Array.isArray(body) ? body : [body];
    const requestIds = messages.filter(isRequest).map((m) => m.id);
    if (requestIds.length === 0) {
      res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
    } else {
      const pending: PendingPost = {
        res,
        waiting: new Set(requestIds),
        responses: [],
        batch: Array.isArray(body),
        sse: false,
        acceptsSse,
      };
      for (const id of requestIds) this.#pending.set(id, pending);
      res.once('close', () => {
        // The client went away before every answer was written: forget the slots.
        for (const id of pending.waiting) if (this.#pending.get(id) === pending) this.#pending.delete(id);
      });
    }
    for (const message of messages) this.onmessage?.(message);
  }

  /** Opens the session's standalone notification stream (GET). */
  handleGet(res: ServerResponse): void {
    if (this.#stream && !this.#stream.writableEnded) {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32000,
            message: 'Conflict: a notification stream is already open for this session',
          },
        }),
      );
      return;
    }
    res.writeHead(200, sseHeaders(this.sessionId));
    res.flushHeaders();
    this.#stream = res;
    // A comment line now and then keeps proxies and idle timers from cutting a quiet stream.
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    res.once('close', () => {
      clearInterval(keepAlive);
      if (this.#stream === res) this.#stream = undefined;
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) return;
    if (isResponse(message)) {
      const id = (message as { id: RequestId }).id;
      const pending = this.#pending.get(id);
      if (!pending) return;
      this.#pending.delete(id);
      pending.waiting.delete(id);
      if (pending.sse) writeEvent(pending.res, message);
      else pending.responses.push(message);
      if (pending.waiting.size === 0) this.#finish(pending);
      return;
    }
    const related = options?.relatedRequestId;
    const pending = related === undefined ? undefined : this.#pending.get(related);
    if (pending?.acceptsSse && !pending.res.writableEnded) {
      if (!pending.sse) {
        pending.sse = true;
        pending.res.writeHead(200, sseHeaders(this.sessionId));
        for (const earlier of pending.responses) writeEvent(pending.res, earlier);
        pending.responses = [];
      }
      writeEvent(pending.res, message);
      return;
    }
    if (this.#stream && !this.#stream.writableEnded) writeEvent(this.#stream, message);
  }

  #finish(pending: PendingPost): void {
    const { res } = pending;
    if (res.writableEnded || res.destroyed) return;
    if (pending.sse) {
      res.end();
      return;
    }
    const payload = JSON.stringify(pending.batch ? pending.responses : pending.responses[0]);
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      'mcp-session-id': this.sessionId,
    });
    res.end(payload);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const pending of new Set(this.#pending.values())) if (!pending.res.writableEnded) pending.res.end();
    this.#pending.clear();
    this.#stream?.end();
    this.#stream = undefined;
    this.onclose?.();
  }
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } {
  return 'method' in message && 'id' in message && (message as { id?: unknown }).id !== undefined;
}

function isResponse(message: JSONRPCMessage): boolean {
  return !('method' in message) && ('result' in message || 'error' in message);
}

function sseHeaders(sessionId: string) {
  return {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'mcp-session-id': sessionId,
  };
}

function writeEvent(res: ServerResponse, message: JSONRPCMessage): void {
  if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}
