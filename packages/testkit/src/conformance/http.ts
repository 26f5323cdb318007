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
  isInitializeRequest,
  isLegacyRequest,
  type McpServer,
} from '@modelcontextprotocol/server';
import { HttpError, readJsonBody, sendJson } from '../control.js';
import { MemoryEventStore } from './event-store.js';
import { createConformanceServer } from './fixture.js';
import type { FixtureState } from './state.js';

/** Options of {@link startConformanceHttp}. */
export interface ConformanceHttpOptions {
  /** Default 127.0.0.1 (only loopback Host/Origin headers are accepted either way). */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Path of the MCP endpoint; default `/mcp`. */
  path?: string;
  /** serverInfo.name; default `conformance-fixture`. */
  name?: string;
  /** SSE `retry` hint (ms) sent on resumable 2025 streams; default 1000. */
  retryIntervalMs?: number;
}

/** A running HTTP endpoint of the conformance fixture. */
export interface ConformanceHttp {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

interface LegacySession {
  server: McpServer;
  transport: NodeStreamableHTTPServerTransport;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message } });
}

/**
 * Serves the conformance fixture over Streamable HTTP at one URL, in both wire eras: 2025 clients get
 * sessions (`Mcp-Session-Id`, GET notification streams, DELETE, resumable SSE with `Last-Event-ID`);
 * 2026-07-28 requests (per-request `_meta` envelope) are served statelessly by the SDK's `createMcpHandler`.
 * Requests whose Host or Origin is not loopback are refused with 403 (DNS-rebinding protection).
 */
export async function startConformanceHttp(
  state: FixtureState,
  options: ConformanceHttpOptions = {},
): Promise<ConformanceHttp> {
  const name = options.name ?? 'conformance-fixture';
  const mcpPath = options.path ?? '/mcp';
  const sessions = new Map<string, LegacySession>();
  const opening = new Set<LegacySession>();
  const checkHost = localhostHostValidation();
  const checkOrigin = localhostOriginValidation();
  const modern = createMcpHandler((ctx) => createConformanceServer(state, ctx.era, name), {
    legacy: 'reject',
    bus: state.bus,
  });
  const serveModern = toNodeHandler(modern);

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = createConformanceServer(state, 'legacy', name);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new MemoryEventStore(),
      retryInterval: options.retryIntervalMs ?? 1000,
      onsessioninitialized: (sessionId) => {
        opening.delete(session);
        sessions.set(sessionId, session);
      },
    });
    const session: LegacySession = { server, transport };
    opening.add(session);
    await server.connect(transport);
    state.attach(server, 'legacy');
    const onclose = server.server.onclose;
    server.server.onclose = () => {
      opening.delete(session);
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      onclose?.();
    };
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === undefined) await server.close();
  }

  async function serveLegacy(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && session === undefined) {
      rpcError(res, 404, -32001, 'Session not found');
      return;
    }
    if (session !== undefined) {
      await session.transport.handleRequest(req, res, body);
    } else if (req.method === 'POST' && isInitializeRequest(body)) {
      await openSession(req, res, body);
    } else if (req.method === 'POST' || req.method === 'GET' || req.method === 'DELETE') {
      rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    } else {
      res.setHeader('allow', 'GET, POST, DELETE');
      rpcError(res, 405, -32000, 'Method not allowed');
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!checkHost(req, res) || !checkOrigin(req, res)) {
      req.resume();
      return;
    }
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== mcpPath) {
      req.resume();
      sendJson(res, 404, { error: 'not found' });
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJsonBody(req);
      } catch (error) {
        rpcError(res, error instanceof HttpError ? error.status : 400, -32700, 'Parse error');
        return;
      }
      if (body !== undefined && !(await isLegacyRequest(await toWebRequest(req, body), body))) {
        await serveModern(req, res, body);
        return;
      }
    } else {
      req.resume();
    }
    await serveLegacy(req, res, body);
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  const host = unspecified
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}${mcpPath}`,
    close: () => {
      closed ??= (async () => {
        await modern.close();
        const all = [...sessions.values(), ...opening];
        await Promise.allSettled(all.map((s) => s.server.close()));
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
