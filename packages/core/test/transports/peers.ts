import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import {
  Client,
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { Server as McpServer } from '@modelcontextprotocol/server';
import { type WebSocket, WebSocketServer } from 'ws';
import { MCP_WS_SUBPROTOCOL } from '../../src/transports/websocket.js';

// The far ends the transport contract suites drive: a frame channel (newline-delimited over a socket, or
// WebSocket text frames) seen as an SDK `Transport`, and a bare Streamable HTTP server end. They are the
// test's own peers, independent of the transports under test.

/** Waits for `event` (a promise) at most `ms`, naming what it waited for when it gives up. */
export function within<T>(event: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([event, timeout]).finally(() => clearTimeout(timer));
}

/** A promise and the function that settles it. */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A small notification numbered `n`: what the suites send to see order kept. */
export const notification = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: n },
});

/** An SDK Server answering `tools/list` with one `echo` tool, and an SDK Client to talk to it. */
export function sdkPair(): { server: McpServer; client: Client } {
  const server = new McpServer({ name: 'contract', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }],
  }));
  return { server, client: new Client({ name: 'contract-client', version: '1.0.0' }) };
}

/** Resolves once `list` holds `n` items (checked each turn of the event loop), within the usual bound. */
export function holding(list: unknown[], n: number, what: string): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      const check = () => (list.length >= n ? resolve() : setImmediate(check));
      check();
    }),
    what,
  );
}

/** Counts a transport's `onclose` calls, and signals the first. */
export function recordCloses(transport: Transport): {
  count: number;
  closed: ReturnType<typeof signal<void>>;
} {
  const closes = { count: 0, closed: signal() };
  transport.onclose = () => {
    closes.count += 1;
    closes.closed.resolve();
  };
  return closes;
}

/** One text frame in each direction. */
export interface FrameChannel {
  write(text: string): void;
  /** Frames are handed on from the first call on; earlier ones are kept until then. */
  onFrame(deliver: (text: string) => void): void;
  onEnd(done: () => void): void;
  end(): void;
}

/** Newline-delimited frames over a socket (stdio's framing). */
export function lineChannel(socket: Socket): FrameChannel {
  let buffer = '';
  const kept: string[] = [];
  let deliver: ((text: string) => void) | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      if (deliver) deliver(line);
      else kept.push(line);
    }
  });
  socket.on('error', () => {});
  return {
    write: (text) => void socket.write(`${text}\n`),
    onFrame: (next) => {
      deliver = next;
      for (const line of kept.splice(0)) next(line);
    },
    onEnd: (done) => socket.once('close', done),
    end: () => socket.destroy(),
  };
}

/** WebSocket text frames. */
export function wsChannel(socket: WebSocket): FrameChannel {
  const kept: string[] = [];
  let deliver: ((text: string) => void) | undefined;
  socket.on('message', (data) => {
    const text = data.toString();
    if (deliver) deliver(text);
    else kept.push(text);
  });
  socket.on('error', () => {});
  return {
    write: (text) => socket.send(text),
    onFrame: (next) => {
      deliver = next;
      for (const text of kept.splice(0)) next(text);
    },
    onEnd: (done) => socket.once('close', done),
    end: () => socket.terminate(),
  };
}

/** A frame channel as an SDK `Transport` (either side): JSON in each frame, no checks beyond parsing. */
export class FrameTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #channel: FrameChannel;
  #closed = false;

  constructor(channel: FrameChannel) {
    this.#channel = channel;
    channel.onEnd(() => this.#finish());
  }

  async start(): Promise<void> {
    this.#channel.onFrame((text) => {
      try {
        this.onmessage?.(JSON.parse(text) as JSONRPCMessage);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    });
  }

  /** Writes `text` as one frame, as is. */
  raw(text: string): void {
    this.#channel.write(text);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('peer closed');
    this.#channel.write(JSON.stringify(message));
  }

  async close(): Promise<void> {
    this.#channel.end();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

/** A listening loopback WebSocket server on an ephemeral port that accepts the `mcp` subprotocol only. */
export async function wsServer(): Promise<{
  wss: WebSocketServer;
  port: number;
  close: () => Promise<void>;
}> {
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    handleProtocols: (protocols) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
  });
  await within(new Promise((resolve) => wss.once('listening', resolve)), 'the WebSocket server');
  const close = async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
  return { wss, port: (wss.address() as AddressInfo).port, close };
}

/** A loopback TCP server on an ephemeral port, handing each accepted socket on. */
export async function tcpServer(): Promise<{
  port: number;
  accepted: () => Promise<Socket>;
  close: () => Promise<void>;
}> {
  const sockets: Socket[] = [];
  const waiting: Array<(socket: Socket) => void> = [];
  const queued: Socket[] = [];
  const server = createTcpServer((socket) => {
    sockets.push(socket);
    const next = waiting.shift();
    if (next) next(socket);
    else queued.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => {
      const socket = queued.shift();
      return socket ? Promise.resolve(socket) : new Promise((resolve) => waiting.push(resolve));
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A child process that relays its stdin/stdout to a loopback TCP port (argv[1]) and exits when either side ends. */
export const RELAY_SCRIPT = `
const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1');
process.stdin.pipe(socket);
socket.pipe(process.stdout);
socket.on('close', () => process.exit(0));
socket.on('error', () => process.exit(1));
process.stdin.on('end', () => socket.end());
`;

/**
 * The server end of Streamable HTTP, bare: a POSTed request is answered on its own response (JSON) when
 * the server sends its response; everything else the server sends goes to the GET event stream (kept
 * until one is open). `raw` writes an event stream event as is.
 */
export class HttpServerPeer implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #http: Server;
  readonly #pending = new Map<string | number, ServerResponse>();
  #stream: ServerResponse | undefined;
  readonly #queued: string[] = [];
  #closed = false;

  constructor() {
    this.#http = createServer((req, res) => this.#handle(req, res));
  }

  async listen(): Promise<URL> {
    await new Promise<void>((resolve) => this.#http.listen(0, '127.0.0.1', resolve));
    return new URL(`http://127.0.0.1:${(this.#http.address() as AddressInfo).port}/mcp`);
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const id = (message as { id?: string | number }).id;
    const res = !('method' in message) && id !== undefined ? this.#pending.get(id) : undefined;
    if (res && id !== undefined) {
      this.#pending.delete(id);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message));
      return;
    }
    this.raw(JSON.stringify(message));
  }

  /** One event on the GET stream with `data` as is. */
  raw(data: string): void {
    const event = `event: message\ndata: ${data}\n\n`;
    if (this.#stream) this.#stream.write(event);
    else this.#queued.push(event);
  }

  /** The server goes away: no more connections, the open ones cut. */
  async goAway(): Promise<void> {
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }

  async close(): Promise<void> {
    if (this.#http.listening) await this.goAway();
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET') {
      if (!String(req.headers.accept).includes('text/event-stream')) {
        res.writeHead(405).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      this.#stream = res;
      for (const event of this.#queued.splice(0)) res.write(event);
      res.once('close', () => {
        if (this.#stream === res) this.#stream = undefined;
      });
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      let body: JSONRPCMessage | JSONRPCMessage[];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JSONRPCMessage | JSONRPCMessage[];
      } catch {
        res.writeHead(400).end();
        return;
      }
      const messages = Array.isArray(body) ? body : [body];
      let requests = 0;
      for (const message of messages) {
        const id = (message as { id?: string | number }).id;
        if ('method' in message && id !== undefined) {
          requests += 1;
          this.#pending.set(id, res);
        }
      }
      if (requests === 0) res.writeHead(202).end();
      for (const message of messages) this.onmessage?.(message);
    });
  }
}
