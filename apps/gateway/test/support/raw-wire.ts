import { connect } from 'node:net';
import { MCP_WS_SUBPROTOCOL } from '@switchyard/core/listener';
import WebSocket from 'ws';

// Raw clients for input no well-behaved client sends: any request target, any header, any bytes.

/** An HTTP answer as it came: the status (0 when the connection ended without one), headers and body. */
export interface RawHttpAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body, de-chunked; empty for HEAD and for a stream cut after its headers. */
  body: string;
}

export interface RawHttpRequest {
  method?: string;
  /** The request target, written as is (`//[` and `/a%zz` reach the server as sent). */
  target: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * One HTTP/1.1 exchange over a fresh (keep-alive) connection, written byte for byte, closed by this side
 * once the answer's body is complete (Content-Length, the last chunk, or the server closing), or right
 * after the headers of a GET's event stream (which does not end); rejects after `timeoutMs` (a hang).
 * Keep-alive, as real clients send: a server answering before it read a large body then reads the rest,
 * where with `Connection: close` it would close on it and the client could lose the answer to a reset.
 */
export function rawHttp(url: string, request: RawHttpRequest, timeoutMs = 10_000): Promise<RawHttpAnswer> {
  const { hostname, port } = new URL(url);
  const method = request.method ?? 'POST';
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const head = [
    `${method} ${request.target} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Content-Length: ${body.length}`,
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let raw = Buffer.alloc(0);
    let settled = false;
    const timer = setTimeout(() => {
      settle();
      reject(
        new Error(`no complete answer within ${timeoutMs} ms to ${method} ${request.target.slice(0, 80)}`),
      );
    }, timeoutMs);
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      socket.destroy();
    };
    const check = (ended: boolean) => {
      if (settled) return;
      const answer = parseAnswer(raw, method, ended);
      if (answer === undefined) return;
      settle();
      resolve(answer);
    };
    // Written, not ended: a server may drop the answer to a request whose sender half-closed first.
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body])));
    socket.on('data', (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      check(false);
    });
    socket.on('close', () => check(true));
    socket.on('error', () => check(true));
  });
}

/** The answer in `raw` once it is complete (or the connection `ended`), else undefined. */
function parseAnswer(raw: Buffer, method: string, ended: boolean): RawHttpAnswer | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return ended ? { status: 0, headers: {}, body: raw.toString('utf8') } : undefined;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine?.split(' ')[1] ?? 0);
  const rest = raw.subarray(end + 4);
  const done = (bytes: Buffer) => ({ status, headers, body: bytes.toString('utf8') });
  if (method === 'HEAD' || status === 204 || status === 304) return done(Buffer.alloc(0));
  if (method === 'GET' && headers['content-type']?.startsWith('text/event-stream'))
    return done(Buffer.alloc(0));
  const length = headers['content-length'];
  if (length !== undefined)
    return rest.length >= Number(length)
      ? done(rest.subarray(0, Number(length)))
      : ended
        ? done(rest)
        : undefined;
  if (headers['transfer-encoding']?.includes('chunked')) {
    const chunks = dechunk(rest);
    return chunks.complete || ended ? done(chunks.body) : undefined;
  }
  return ended ? done(rest) : undefined;
}

/** Decodes a chunked body as far as it has arrived; `complete` once the last (empty) chunk is in. */
function dechunk(raw: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return { body: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: true };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    if (raw.length < eol + 2 + size) return { body: Buffer.concat(parts), complete: false };
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** The JSON-RPC messages of an answer's body: one JSON value (or batch), or the data of its SSE events. */
export function messagesOf(answer: RawHttpAnswer): unknown[] | undefined {
  const text = answer.body.trim();
  if (text.length === 0) return [];
  if (answer.headers['content-type']?.startsWith('text/event-stream')) {
    const out: unknown[] = [];
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data.length === 0) continue;
      try {
        out.push(JSON.parse(data));
      } catch {
        return undefined;
      }
    }
    return out;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return undefined;
  }
}

/** A WebSocket client (subprotocol `mcp`) that sends any text and collects every answer. */
export class RawWs {
  readonly ws: WebSocket;
  readonly messages: unknown[] = [];
  #waiters = new Set<() => void>();
  #closed: { code: number } | undefined;

  private constructor(url: string) {
    this.ws = new WebSocket(url, MCP_WS_SUBPROTOCOL);
    this.ws.on('error', () => {});
    this.ws.on('message', (data, binary) => {
      if (binary) return;
      const text = data.toString();
      try {
        this.messages.push(JSON.parse(text));
      } catch {
        this.messages.push({ unparsable: text });
      }
      for (const waiter of this.#waiters) waiter();
    });
    this.ws.once('close', (code) => {
      this.#closed = { code };
      for (const waiter of this.#waiters) waiter();
    });
  }

  static async open(url: string, timeoutMs = 5_000): Promise<RawWs> {
    const client = new RawWs(url);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`WebSocket ${url}: not open within ${timeoutMs} ms`)),
        timeoutMs,
      );
      client.ws.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      client.ws.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    return client;
  }

  /** The close code once the connection closed, else undefined. */
  get closed(): { code: number } | undefined {
    return this.#closed;
  }

  send(text: string): void {
    this.ws.send(text);
  }

  /**
   * Resolves with the first collected message `predicate` accepts (waiting for it); rejects after
   * `timeoutMs` or when the connection closes first.
   */
  waitFor(predicate: (message: unknown) => boolean, what: string, timeoutMs = 5_000): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find(predicate);
        if (found !== undefined) {
          done();
          resolve(found);
        } else if (this.#closed) {
          done();
          reject(new Error(`WebSocket closed (${this.#closed.code}) before ${what}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

/** The JSON-RPC message with this id among `messages`, if any. */
export function answerTo(id: unknown): (message: unknown) => boolean {
  return (message) =>
    typeof message === 'object' && message !== null && (message as { id?: unknown }).id === id;
}
