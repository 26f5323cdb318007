/**
 * JSON-RPC over Streamable HTTP as plain bytes: one POST on a keep-alive `node:http` agent, its body read
 * as JSON or as an event stream, and requests in flight on a message channel matched to their answers.
 * No schema validation anywhere: what a benchmark needs to measure the servers rather than the client.
 */
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** One JSON-RPC request as the clients take it. */
export interface McpRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** What every client of this module is: requests in, results out (a JSON-RPC error rejects), closable. */
export interface RequestClient {
  request(message: McpRequest, options?: unknown): Promise<Record<string, unknown>>;
  close(): Promise<unknown>;
}

/** A JSON body, or the `data:` lines of an event stream; an empty body (202) is no messages. */
export function parseMessages(text: string, contentType: string): Record<string, unknown>[] {
  if (text.trim() === '') return [];
  if (!contentType.includes('text/event-stream')) {
    const parsed = JSON.parse(text) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
  }
  const messages: Record<string, unknown>[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data) messages.push(JSON.parse(data) as Record<string, unknown>);
  }
  return messages;
}

/** The answer to one POST: its HTTP status and headers, and the JSON-RPC messages of its body. */
export interface PostReply {
  status: number;
  headers: IncomingHttpHeaders;
  messages: Record<string, unknown>[];
  /** The raw body when the status is an error (≥ 400), for messages. */
  text: string;
}

/**
 * POSTs `body` (JSON) to `url` with `headers` and reads the whole reply (JSON or an event stream).
 * Rejects only on a transport error or after `timeoutMs`; an HTTP error status is in the reply.
 */
export function postJson(
  url: URL,
  agent: Agent,
  body: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<PostReply> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      agent,
      timeout: timeoutMs,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(payload),
        ...headers,
      },
    });
    req.on('timeout', () => req.destroy(new Error(`POST ${url.href}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        try {
          const messages =
            status >= 400 && !text.trimStart().startsWith('{')
              ? []
              : parseMessages(text, String(res.headers['content-type'] ?? ''));
          resolve({ status, headers: res.headers, messages, text: status >= 400 ? text : '' });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.end(payload);
  });
}

/** `DELETE url` with `headers`; resolves with the HTTP status (0 on a transport error). */
export function deleteRequest(url: URL, agent: Agent, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'DELETE', agent, headers, timeout: 10_000 });
    req.on('timeout', () => req.destroy());
    req.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)));
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** The JSON-RPC error `error` of a request `what` as an Error carrying its `code` and `data`. */
export function rpcError(what: string, error: unknown, status?: number): Error {
  const e = error as { code?: number; message?: string; data?: unknown };
  return Object.assign(new Error(`${what}: ${e.message} (${e.code})`), {
    code: e.code,
    data: e.data,
    ...(status === undefined ? {} : { status }),
  });
}

/** The result of the response to request `id` in `reply`; throws with its JSON-RPC error or HTTP status. */
export function resultOf(reply: PostReply, id: number, what: string): Record<string, unknown> {
  const answer = reply.messages.find((m) => m.id === id);
  if (answer?.error) throw rpcError(what, answer.error, reply.status);
  if (!answer || reply.status >= 400) {
    throw Object.assign(new Error(`${what}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`), {
      status: reply.status,
    });
  }
  return answer.result as Record<string, unknown>;
}

interface Waiter {
  method: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** Requests in flight on a message channel (stdio lines, WebSocket frames), settled by JSON-RPC id. */
export class PendingRequests {
  readonly #waiting = new Map<number, Waiter>();
  #nextId = 1;

  /** Registers a request; returns its id and the promise of its result (rejected with its JSON-RPC error). */
  open(method: string): { id: number; result: Promise<Record<string, unknown>> } {
    const id = this.#nextId++;
    const result = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#waiting.set(id, { method, resolve, reject });
    });
    return { id, result };
  }

  /** Settles the request `message` answers, if it is a response to one in flight; ignores anything else. */
  answer(message: Record<string, unknown>): void {
    if (typeof message.id !== 'number') return;
    const waiter = this.#waiting.get(message.id);
    if (!waiter || (!('result' in message) && !('error' in message))) return;
    this.#waiting.delete(message.id);
    if (message.error) waiter.reject(rpcError(waiter.method, message.error));
    else waiter.resolve(message.result as Record<string, unknown>);
  }

  /** Rejects every request in flight (the channel closed). */
  failAll(error: Error): void {
    for (const waiter of this.#waiting.values()) waiter.reject(error);
    this.#waiting.clear();
  }

  get size(): number {
    return this.#waiting.size;
  }
}
