import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  type EventStore,
  isInitializeRequest,
  isLegacyRequest,
  type McpServerFactory,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { type ControlTarget, HttpError, handleControl, readJsonBody, sendJson } from './control.js';
import type { HttpIntercept } from './misbehave/http-shim.js';
import { type RequestGate, refuseUnauthorized } from './request-gate.js';

/** A running HTTP listener of a TestServer. */
export interface HttpTestServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  url: string;
  port: number;
  /** Base of the JSON control API, e.g. `http://127.0.0.1:PORT/control`. */
  controlUrl: string;
  /** Closes this listener's sessions and the listener itself. */
  close(): Promise<void>;
}

export interface HttpListenOptions extends RequestGate {
  host?: string;
  port?: number;
  /** Path of the MCP endpoint; default `/mcp`. */
  path?: string;
}

/** The listener plus the hooks TestServer needs internally. */
export interface HttpListener extends HttpTestServer {
  /** Destroys every open HTTP connection (keeps listening): what a crashed-and-restarted server looks like. */
  dropConnections(): void;
}

/**
 * What one listener serves; the TestServer and the conformance fixture each pass their own. Everything
 * else (one URL for both eras, Host/Origin checks, sessions, closing) is the same for both.
 */
export interface HttpListenerDeps {
  /** What `/control` drives; without it there is no control API. */
  control?: ControlTarget;
  /**
   * Creates the server of one legacy (2025) session; without it only the control API is served (the
   * testkit CLI's stdio mode). `stream` lets it wait for the session's standalone GET stream.
   */
  createSession?: (stream: StandaloneStream) => SessionServer;
  /** Resumable legacy SSE streams: each session logs its events, replayed after `Last-Event-ID`. */
  resumable?: Resumability;
  /**
   * Serves the modern (2026-07-28) era next to the sessionful legacy one, at the same path: non-legacy
   * requests (per `isLegacyRequest`) go to `createMcpHandler(factory, { legacy: 'reject', bus })`.
   */
  modern?: ModernDeps;
  /** Sees every parsed MCP POST first (misbehave modes); true = it answered or holds the request. */
  intercept?: HttpIntercept | undefined;
}

/** The server of one legacy session (an SDK `Server` or `McpServer`). */
export interface SessionServer {
  connect(transport: NodeStreamableHTTPServerTransport): Promise<void>;
  close(): Promise<void>;
}

/** A legacy session's standalone GET SSE stream, the only way its unsolicited notifications get out. */
export interface StandaloneStream {
  /** Resolves once the stream is open, or after a bounded wait (the SDK drops what is sent before). */
  opened(): Promise<void>;
}

export interface Resumability {
  /** A fresh event log for one session. */
  eventStore: () => EventStore;
  /** The SSE `retry` hint (ms) sent on the session's streams; default the SDK's. */
  retryIntervalMs?: number;
}

export interface ModernDeps {
  /** Builds one per-request instance. */
  factory: McpServerFactory;
  /** The change-event bus the handler's `subscriptions/listen` streams subscribe to. */
  bus: ServerEventBus;
  /** Observes every modern JSON-RPC message body before it is served (stats). */
  onMessage?: (body: unknown) => void;
}

const CONTROL_PATH = '/control';
const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;
/** Longest an unsolicited notification waits for the session's standalone GET stream to open. */
const STANDALONE_STREAM_WAIT_MS = 1000;

/** Tracks whether a session's standalone GET SSE stream is open, and lets senders wait (bounded) for it. */
class StreamGate {
  #open = false;
  #waiters = new Set<() => void>();

  opened(): void {
    this.#open = true;
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  closed(): void {
    this.#open = false;
  }

  wait(ms: number): Promise<void> {
    if (this.#open) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#waiters.add(wake);
    });
  }

  release(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

interface HttpSession {
  server: SessionServer;
  transport: NodeStreamableHTTPServerTransport;
  stream: StreamGate;
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message } });
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts a node:http listener serving the sessionful MCP Streamable HTTP endpoint (one SDK Server and one
 * transport per `Mcp-Session-Id`; POST, GET stream and DELETE; resumable with `deps.resumable`) plus, with
 * `deps.control`, the JSON control API under `/control`. With `deps.modern`, modern-era (2026-07-28) POSTs
 * to the same path are served by the SDK's stateless `createMcpHandler` instead (routed with
 * `isLegacyRequest`). Requests whose Host (or Origin) is not loopback are refused with 403 (DNS rebinding).
 */
export async function startHttpListener(
  deps: HttpListenerDeps,
  options: HttpListenOptions = {},
): Promise<HttpListener> {
  const host = options.host ?? '127.0.0.1';
  const mcpPath = options.path ?? '/mcp';
  const sessions = new Map<string, HttpSession>();
  const pending = new Set<HttpSession>();
  const checkHost = localhostHostValidation();
  const checkOrigin = localhostOriginValidation();
  let closing = false;
  const modern =
    deps.modern === undefined
      ? undefined
      : createMcpHandler(deps.modern.factory, { legacy: 'reject', bus: deps.modern.bus });
  const serveModern = modern === undefined ? undefined : toNodeHandler(modern);

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const createSession = deps.createSession;
    if (createSession === undefined) throw new HttpError(404, 'not found');
    const stream = new StreamGate();
    const server = createSession({ opened: () => stream.wait(STANDALONE_STREAM_WAIT_MS) });
    const resumable = deps.resumable;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      ...(resumable === undefined
        ? {}
        : { eventStore: resumable.eventStore(), retryInterval: resumable.retryIntervalMs }),
      onsessioninitialized: (sessionId) => {
        pending.delete(session);
        sessions.set(sessionId, session);
      },
    });
    const session: HttpSession = { server, transport, stream };
    pending.add(session);
    transport.onclose = () => {
      pending.delete(session);
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      stream.release();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === undefined) await server.close();
  }

  function watchStandaloneStream(session: HttpSession, res: ServerResponse): void {
    // The SDK drops unsolicited notifications until the GET stream exists; note when its 200 head goes out.
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      const result = (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
      if (this.statusCode === 200) {
        session.stream.opened();
        this.once('close', () => session.stream.closed());
      }
      return result;
    } as typeof res.writeHead;
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJsonBody(req, MAX_MCP_BODY_BYTES);
      } catch (error) {
        const status = error instanceof HttpError ? error.status : 400;
        jsonRpcError(res, status, -32700, error instanceof Error ? error.message : 'Parse error');
        return;
      }
      if (deps.intercept?.(req, res, body)) return;
      if (serveModern !== undefined && body !== undefined) {
        const request = await toWebRequest(req, body);
        if (!(await isLegacyRequest(request, body))) {
          deps.modern?.onMessage?.(body);
          await serveModern(req, res, body);
          return;
        }
      }
    } else {
      req.resume();
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && session === undefined) {
      jsonRpcError(res, 404, -32001, 'Session not found');
      return;
    }
    switch (req.method) {
      case 'POST':
        if (session !== undefined) {
          await session.transport.handleRequest(req, res, body);
        } else if (isInitializeRequest(body)) {
          await openSession(req, res, body);
        } else {
          jsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
        }
        return;
      case 'GET':
      case 'DELETE':
        if (session === undefined) {
          jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
          return;
        }
        if (req.method === 'GET') watchStandaloneStream(session, res);
        await session.transport.handleRequest(req, res);
        return;
      default:
        res.setHeader('allow', 'GET, POST, DELETE');
        jsonRpcError(res, 405, -32000, 'Method not allowed');
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!checkHost(req, res) || !checkOrigin(req, res)) {
      req.resume();
      return;
    }
    if (closing) {
      req.resume();
      sendJson(res, 503, { error: 'closing' });
      return;
    }
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    const control = deps.control;
    if (control !== undefined && (pathname === CONTROL_PATH || pathname.startsWith(`${CONTROL_PATH}/`))) {
      await handleControl(control, req, res, pathname.slice(CONTROL_PATH.length));
    } else if (deps.createSession !== undefined && pathname === mcpPath) {
      if (!(await refuseUnauthorized(options, req, res))) await handleMcp(req, res);
    } else {
      req.resume();
      sendJson(res, 404, { error: 'not found' });
    }
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (!res.headersSent)
        sendJson(res, status, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  const origin = `http://${urlHost(host)}:${port}`;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      await modern?.close();
      const all = [...sessions.values(), ...pending];
      await Promise.allSettled(all.map((s) => s.server.close()));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    })();
    return closed;
  };

  return {
    url: `${origin}${mcpPath}`,
    port,
    controlUrl: `${origin}${CONTROL_PATH}`,
    close,
    dropConnections: () => httpServer.closeAllConnections(),
  };
}
