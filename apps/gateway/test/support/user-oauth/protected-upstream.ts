import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  isInitializeRequest,
  isLegacyRequest,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  type OAuthMetadata,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { z } from 'zod';

// An MCP server protected the way the official server SDK protects one: every request to /mcp needs a
// bearer JWT of the trusted issuer whose audience is this server's URL (checked with `verifyBearerToken`;
// refusals are the SDK's own `bearerAuthChallengeResponse`, a 401 whose WWW-Authenticate names the RFC
// 9728 metadata), and the metadata (`buildOAuthProtectedResourceMetadata`) names the issuer. Serves both
// protocol eras at one URL: 2025 sessions (NodeStreamableHTTPServerTransport, one McpServer each) and
// 2026-07-28 requests (`createMcpHandler`). Tools: `whoami` (the token's `sub`), `echo` `{ text }`.

export interface ProtectedUpstreamOptions {
  /** The trusted authorization server's issuer identifier. */
  issuer: string;
  /** Scopes advertised in the resource metadata (default `['mcp']`), so clients ask for them. */
  scopes?: string[];
  /** Scopes a token must carry (default none); a token without them gets 403 `insufficient_scope`. */
  requiredScopes?: string[];
}

/** One request to /mcp and the token it carried. */
export interface SeenToken {
  /** The bearer token ('' when there was none). */
  token: string;
  /** The token's `sub` (read even when the token was refused). */
  sub?: string;
  accepted: boolean;
  /** The JSON-RPC method of a POST (the first one of a batch). */
  method?: string;
  /** The `Mcp-Session-Id` the request carried (2025 era). */
  session?: string;
  era: 'legacy' | 'modern';
  at: number;
}

export interface ProtectedUpstream {
  /** The MCP endpoint (`http://127.0.0.1:PORT/mcp`), also the resource identifier tokens must be for. */
  url: string;
  /** The RFC 9728 metadata URL its challenges name. */
  resourceMetadataUrl: string;
  /** Every request to /mcp, in order. */
  readonly seen: readonly SeenToken[];
  /** The distinct tokens it accepted, in order. */
  tokens(): string[];
  /** Refuses `token` from now on, as if it had been revoked at the resource. */
  refuse(token: string): void;
  /** Refuses every token while on. */
  refuseAll(on: boolean): void;
  /** Closes every session, stream and connection, and the listener. */
  close(): Promise<void>;
}

/** Starts the upstream on 127.0.0.1 (ephemeral port). Always `close()` it. */
export async function startProtectedUpstream(options: ProtectedUpstreamOptions): Promise<ProtectedUpstream> {
  const oauthMetadata = (await (
    await fetch(`${options.issuer}/.well-known/openid-configuration`)
  ).json()) as OAuthMetadata;
  const seen: SeenToken[] = [];
  const refused = new Set<string>();
  let refuseAll = false;
  const sessions = new Map<string, { server: McpServer; transport: NodeStreamableHTTPServerTransport }>();
  const modern = createMcpHandler(() => mcpServer(), { legacy: 'reject' });
  const serveModern = toNodeHandler(modern);

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(url));
  const metadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata,
    resourceServerUrl: new URL(url),
    scopesSupported: options.scopes ?? ['mcp'],
    resourceName: 'protected test upstream',
  });
  const jwks = createRemoteJWKSet(new URL(oauthMetadata.jwks_uri ?? `${options.issuer}/jwks`));
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      if (refuseAll || refused.has(token)) throw new OAuthError(OAuthErrorCode.InvalidToken, 'token refused');
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer: options.issuer, audience: url });
        return {
          token,
          clientId: String(payload.client_id ?? ''),
          scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
          expiresAt: payload.exp,
          resource: new URL(url),
          extra: { sub: payload.sub },
        };
      } catch (error) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, `invalid token: ${String(error)}`);
      }
    },
  };
  const bearer = { verifier, resourceMetadataUrl, requiredScopes: options.requiredScopes };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (METADATA_PATHS.has(pathname)) {
      req.resume();
      return send(res, Response.json(metadata));
    }
    if (pathname !== '/mcp') {
      req.resume();
      return void res.writeHead(404).end();
    }
    if (req.method !== 'POST') req.resume();
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const era =
      body !== undefined && !(await isLegacyRequest(await toWebRequest(req, body), body))
        ? 'modern'
        : 'legacy';
    const header = req.headers.authorization;
    const token = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
    const session = req.headers['mcp-session-id'] as string | undefined;
    const entry: SeenToken = { token, sub: subOf(token), accepted: false, era, session, at: Date.now() };
    entry.method = (Array.isArray(body) ? body[0] : body)?.method;
    seen.push(entry);
    let auth: AuthInfo;
    try {
      auth = await verifyBearerToken(header, bearer);
    } catch (error) {
      return send(res, bearerAuthChallengeResponse(error, bearer));
    }
    entry.accepted = true;
    const authed = Object.assign(req, { auth });
    if (era === 'modern') return serveModern(authed, res, body);
    await serveLegacy(authed, res, body, session);
  }

  async function serveLegacy(
    req: IncomingMessage & { auth: AuthInfo },
    res: ServerResponse,
    body: unknown,
    sessionId: string | undefined,
  ): Promise<void> {
    const existing = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (existing) return existing.transport.handleRequest(req, res, body);
    if (sessionId !== undefined || req.method !== 'POST' || !isInitializeRequest(body)) {
      return send(res, Response.json(rpcError('No valid session'), { status: sessionId ? 404 : 400 }));
    }
    const server = mcpServer();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  let closed: Promise<void> | undefined;
  return {
    url,
    resourceMetadataUrl,
    seen,
    tokens: () => [...new Set(seen.filter((s) => s.accepted).map((s) => s.token))],
    refuse: (token) => void refused.add(token),
    refuseAll: (on) => {
      refuseAll = on;
    },
    close: () => {
      closed ??= (async () => {
        await modern.close();
        await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}

/** The upstream's tools; `whoami` answers the `sub` of the token the calling request carried. */
function mcpServer(): McpServer {
  const server = new McpServer({ name: 'protected-upstream', version: '1.0.0' });
  server.registerTool(
    'whoami',
    {
      description: "Answers the subject (sub) of the request's access token",
      inputSchema: z.object({}),
      outputSchema: z.object({ sub: z.string() }),
    },
    (_args, ctx) => {
      const sub = String(ctx.http?.authInfo?.extra?.sub ?? '');
      return { content: [{ type: 'text', text: sub }], structuredContent: { sub } };
    },
  );
  server.registerTool(
    'echo',
    { description: 'Answers its text', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

function subOf(token: string): string | undefined {
  try {
    const { sub } = decodeJwt(token);
    return sub;
  } catch {
    return undefined;
  }
}

/** RFC 9728 metadata locations: path-aware (what the SDK's challenge names) and at the root. */
const METADATA_PATHS = new Set([
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-protected-resource',
]);

const rpcError = (message: string) => ({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(await response.text());
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? undefined : JSON.parse(text);
}
