import { connect } from 'node:net';
import { MCP_WS_SUBPROTOCOL } from '@switchyard/core';
import WebSocket from 'ws';

// Raw clients for input no well-behaved client sends: any request target, any header, any bytes.

/** An HTTP answer as it came: the status (0 when the connection ended without one), headers and body. */
export interface RawHttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 exchange over a fresh connection, written byte for byte (`target` unchecked, so `//[` or
 * `/a%zz` reach the server as sent). Resolves when the server closes the connection or the answer's
 * Content-Length is read; rejects after `timeoutMs` (a hang).
 */
export function rawHttp(
  url: string,
  request: { method?: string; target: string; headers?: Record<string, string>; body?: string | Buffer },
  timeoutMs = 10_000,
): Promise<RawHttpAnswer> {
  const { hostname, port } = new URL(url);
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const head = [
    `${request.method ?? 'POST'} ${request.target} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Connection: close',
    `Content-Length: ${body.length}`,
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${request.method ?? 'POST'} ${request.target}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks)));
    };
    socket.on('connect', () => socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body])));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (complete(Buffer.concat(chunks))) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', () => finish());
  });
}

function parseAnswer(raw: Buffer): RawHttpAnswer {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: text };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine?.split(' ')[1] ?? 0), headers, body: text.slice(end + 4) };
}

function complete(raw: Buffer): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.subarray(0, end).toString('latin1'))?.[1];
  return length !== undefined && raw.length - end - 4 >= Number(length);
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
