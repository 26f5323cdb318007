import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  InMemoryServerEventBus,
  type JSONRPCMessage,
  type ServerEvent,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import {
  type ClientDirectory,
  checkEnvelope,
  type DownstreamSession,
  errorResponse,
  type Gateway,
  type Identity,
  isLegacyVersion,
  ListenTracker,
  type Logger,
  listenedUris,
  openSession,
} from '@switchyard/core';
import type { ListenerConfig } from '../config/load.js';
import { listen } from './listen.js';
import { createRequestGuard } from './origin.js';
import { SessionHttpTransport } from './session-transport.js';

export interface HttpListener {
  url: string;
  port: number;
  sessionCount(): number;
  close(): Promise<void>;
}

interface HttpSession {
  transport: SessionHttpTransport;
  session: DownstreamSession;
  /** The client that opened the session; every later request must authenticate as the same one. */
  identity: Identity;
  lastSeen: number;
  openStreams: number;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Serves MCP over Streamable HTTP (legacy sessions: POST, the GET notification stream, DELETE) on one
 * path, with one SessionHttpTransport and one downstream session (an SDK Server) per `Mcp-Session-Id`.
 */
export async function startHttpListener(
  gateway: Gateway,
  config: ListenerConfig & { sessionIdleMs?: number },
  logger: Logger,
  clients: ClientDirectory,
): Promise<HttpListener> {
  const log = logger.child('http');
  const sessions = new Map<string, HttpSession>();
  const guard = createRequestGuard(config);
  const idleMs = config.sessionIdleMs ?? 30 * 60_000;
  const modern = new ModernEndpoint(gateway, log);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== config.path)
      return sendJson(res, 404, rpcError(-32600, `Not found: the MCP endpoint is ${config.path}`));
    const refused = guard(req);
    if (refused) {
      log.warn('request refused', { reason: refused, origin: req.headers.origin, host: req.headers.host });
      return sendJson(res, 403, rpcError(-32600, `Forbidden: ${refused}`));
    }
    const auth = clients.authenticate(header(req, 'authorization'));
    if (!auth.ok) {
      req.resume();
      // Never log the header itself: it may hold a (mistyped) token.
      log.warn('request refused', { reason: 'unauthorized', remote: req.socket.remoteAddress });
      res.setHeader('WWW-Authenticate', auth.challenge);
      return sendJson(res, auth.status, rpcError(-32600, auth.message));
    }
    const identity = auth.identity;
    /** A session answers only the client that opened it (a stolen session id is useless without its token). */
    const wrongClient = (entry: HttpSession): boolean => {
      if (entry.identity.id === identity.id) return false;
      sendJson(res, 403, rpcError(-32600, 'Forbidden: this session belongs to another client'));
      return true;
    };
    const sessionId = header(req, 'mcp-session-id');
    const version = header(req, 'mcp-protocol-version');
    const unsupported = () =>
      sendJson(
        res,
        400,
        rpcError(
          -32000,
          `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        ),
      );
    if (req.method === 'GET' || req.method === 'DELETE') {
      req.resume();
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return unsupported();
      const entry = sessionId ? sessions.get(sessionId) : undefined;
      if (!entry) {
        return sendJson(
          res,
          sessionId ? 404 : 400,
          sessionId
            ? rpcError(-32001, 'Session not found: initialize a new session')
            : rpcError(-32000, 'Bad Request: Mcp-Session-Id header required'),
        );
      }
      if (wrongClient(entry)) return;
      entry.lastSeen = Date.now();
      if (req.method === 'DELETE') {
        await entry.transport.close();
        res.writeHead(200).end();
        return;
      }
      if (!accepts(req, 'text/event-stream')) {
        return sendJson(
          res,
          406,
          rpcError(-32000, 'Not Acceptable: the notification stream needs Accept: text/event-stream'),
        );
      }
      entry.openStreams += 1;
      res.once('close', () => {
        entry.openStreams -= 1;
        entry.lastSeen = Date.now();
      });
      entry.transport.handleGet(res, { lastEventId: header(req, 'last-event-id'), protocolVersion: version });
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      res.setHeader('Allow', 'GET, POST, DELETE');
      return sendJson(res, 405, rpcError(-32600, `Method ${req.method} not allowed`));
    }
    let body: unknown;
    try {
      body = await readJson(req);
    } catch (error) {
      const tooLarge = error instanceof BodyTooLarge;
      return sendJson(
        res,
        tooLarge ? 413 : 400,
        tooLarge
          ? rpcError(-32600, `Request body exceeds ${MAX_BODY_BYTES} bytes`)
          : rpcError(-32700, `Parse error: ${(error as Error).message}`),
      );
    }
    const invalid = checkEnvelope(body);
    if (invalid) return sendJson(res, 400, invalid);
    if (!sessionId && claimsModernEra(body, version)) {
      await modern.serve(identity, req, res, body);
      return;
    }
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return unsupported();
    const messages = body as JSONRPCMessage | JSONRPCMessage[];
    const acceptsSse = accepts(req, 'text/event-stream');
    if (sessionId) {
      const entry = sessions.get(sessionId);
      if (!entry) return sendJson(res, 404, rpcError(-32001, 'Session not found: initialize a new session'));
      if (wrongClient(entry)) return;
      entry.lastSeen = Date.now();
      entry.transport.handlePost(res, messages, acceptsSse, version);
      return;
    }
    if (!isInitialize(body)) {
      return sendJson(
        res,
        400,
        rpcError(
          -32000,
          'Bad Request: send initialize first, then the Mcp-Session-Id header on every request',
        ),
      );
    }
    const id = randomUUID();
    const session = openSession(gateway, { transport: 'http', id, identity });
    const entry: HttpSession = {
      session,
      identity,
      lastSeen: Date.now(),
      openStreams: 0,
      transport: new SessionHttpTransport(id),
    };
    sessions.set(id, entry);
    entry.transport.onclose = () => {
      sessions.delete(id);
      void session.close();
      log.debug('session closed', { session: id, sessions: sessions.size });
    };
    await session.connect(entry.transport);
    log.debug('session opened', { session: id, sessions: sessions.size });
    entry.transport.handlePost(res, messages, acceptsSse);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log.error('request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) sendJson(res, 500, rpcError(-32603, 'Internal error'));
      else res.end();
    });
  });
  server.keepAliveTimeout = 65_000;

  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const entry of sessions.values()) {
        if (entry.openStreams === 0 && now - entry.lastSeen > idleMs) {
          log.info('closing idle session', { session: entry.session.id });
          void entry.transport.close();
        }
      }
    },
    Math.min(60_000, idleMs),
  );
  sweeper.unref();

  const { port, url } = await listen(server, config, 'http');
  return {
    url,
    port,
    sessionCount: () => sessions.size,
    close: async () => {
      clearInterval(sweeper);
      await modern.close();
      await Promise.allSettled([...sessions.values()].map((e) => e.transport.close()));
      sessions.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Modern-era (2026-07-28) requests are stateless: the SDK's handler serves them, one Server instance per
 * request, and serves subscriptions/listen streams from its event bus. One gateway session per client
 * identity stands for all of that client's modern requests (so plugins see who is calling); what the
 * gateway tells those sessions (updates, list changes) goes onto the one bus, which delivers each event
 * to the listen streams whose filter asks for it.
 */
class ModernEndpoint {
  readonly #bus = new InMemoryServerEventBus();
  readonly #clients = new Map<
    string,
    {
      session: ReturnType<typeof openSession>;
      listens: ListenTracker;
      handler: ReturnType<typeof createMcpHandler>;
      serve: ReturnType<typeof toNodeHandler>;
    }
  >();
  /** Events published in the current turn: several identities' sessions relay the same upstream event. */
  readonly #published = new Set<string>();
  readonly #gateway: Gateway;
  readonly #log: Logger;

  constructor(gateway: Gateway, log: Logger) {
    this.#gateway = gateway;
    this.#log = log;
  }

  async serve(identity: Identity, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const message = body as { method?: unknown; id?: unknown };
    if (message.id !== undefined && typeof message.method === 'string' && !this.#answers(message.method)) {
      // The 2026-07-28 revision: a method the server does not implement is HTTP 404 with -32601.
      return sendJson(res, 404, {
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: -32601,
          message: `Method not found: ${message.method} (protocol revision 2026-07-28).`,
        },
      });
    }
    const client = this.#client(identity);
    if (message.method === 'subscriptions/listen') {
      // Hold the upstream subscriptions this stream asks for, until the client closes it; a URI this
      // client may not follow refuses the whole stream.
      const key = randomUUID();
      const refused = await client.listens.hold(key, listenedUris(body));
      if (refused) return sendJson(res, 200, errorResponse(message.id, refused));
      if (res.destroyed || req.socket.destroyed) {
        client.listens.release(key);
        return;
      }
      res.once('close', () => client.listens.release(key));
    }
    await client.serve(req, res, body);
  }

  #answers(method: string): boolean {
    return MODERN_SDK_METHODS.has(method) || this.#gateway.methods.includes(method);
  }

  #client(identity: Identity) {
    const existing = this.#clients.get(identity.id);
    if (existing) return existing;
    const session = openSession(this.#gateway, {
      transport: 'http',
      id: `http-modern-${identity.id}-${randomUUID()}`,
      identity,
      deliver: async (method, params) => this.#publish(method, params),
    });
    const handler = createMcpHandler(() => session.build(), {
      legacy: 'reject',
      bus: this.#bus,
      onerror: (error) => this.#log.debug('modern request failed', { error: error.message }),
    });
    const created = {
      session,
      listens: new ListenTracker(this.#gateway, session.sink, this.#log),
      handler,
      serve: toNodeHandler(handler),
    };
    this.#clients.set(identity.id, created);
    return created;
  }

  #publish(method: string, params: Record<string, unknown>): void {
    const event = busEvent(method, params);
    if (!event) return;
    const key = event.kind === 'resource_updated' ? `u:${event.uri}` : event.kind;
    if (this.#published.has(key)) return;
    if (this.#published.size === 0) queueMicrotask(() => this.#published.clear());
    this.#published.add(key);
    this.#bus.publish(event);
  }

  async close(): Promise<void> {
    for (const client of this.#clients.values()) {
      await client.handler.close();
      await client.session.close();
    }
    this.#clients.clear();
  }
}

/** The listen-stream event a gateway notification becomes (modern clients hear changes only on streams). */
function busEvent(method: string, params: Record<string, unknown>): ServerEvent | undefined {
  switch (method) {
    case 'notifications/resources/updated':
      return typeof params.uri === 'string' ? { kind: 'resource_updated', uri: params.uri } : undefined;
    case 'notifications/resources/list_changed':
      return { kind: 'resources_list_changed' };
    case 'notifications/tools/list_changed':
      return { kind: 'tools_list_changed' };
    case 'notifications/prompts/list_changed':
      return { kind: 'prompts_list_changed' };
    default:
      return undefined;
  }
}

/** What the SDK's modern handler answers itself (everything else the gateway answers, or nobody does). */
const MODERN_SDK_METHODS = new Set(['server/discover', 'subscriptions/listen']);

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge('too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );
}

/** A single message whose envelope (or header) claims a protocol version of the modern era. */
function claimsModernEra(body: unknown, headerVersion: string | undefined): boolean {
  if (Array.isArray(body) || typeof body !== 'object' || body === null) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const claimed = meta?.['io.modelcontextprotocol/protocolVersion'];
  const version = typeof claimed === 'string' ? claimed : headerVersion;
  return version !== undefined && !isLegacyVersion(version);
}

function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept;
  return accept === undefined || accept.includes(type) || accept.includes('*/*');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
