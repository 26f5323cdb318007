import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger, silentLogger } from '@switchyard/core';
import { requestPath } from '../listeners/http-io.js';
import { CLIENT_NAME, clientMetadataDocument, OAUTH_PATHS } from './client-metadata.js';
import { bindingCookieName, ConnectError, type ConnectFlow } from './connect-flow.js';

export interface CredentialRoutesOptions {
  /** `credentials.publicUrl`: the routes live below its path. */
  publicUrl: string;
  flow: ConnectFlow;
  logger?: Logger;
}

/** A handler for the HTTP listener: answers (true) the gateway's OAuth client routes, else leaves the request (false). */
export type CredentialRoutes = (req: IncomingMessage, res: ServerResponse) => boolean;

/** How long the browser binding cookie lives: as long as an authorization in progress may. */
const BINDING_COOKIE_MAX_AGE_SEC = 600;

/**
 * The browser-facing routes of the per-person OAuth flow (DESIGN §14), below the path of `publicUrl`
 * (and at the bare paths too, for a proxy that strips that path):
 *
 * - `GET /oauth/client.json`: the Client ID Metadata Document.
 * - `GET /oauth/connect/<ticket>`: 302 to the authorization server, setting the cookie that binds the
 *   authorization to this browser; a page (404) for an unknown, used or expired link, (502) when the
 *   upstream's authorization server cannot be discovered.
 * - `GET /oauth/callback`: a page saying the upstream is connected (200), or why not: 400 for every bad
 *   or replayed answer, 502 when the authorization server fails or does not answer in time, 503 when
 *   the store does not answer.
 *
 * Pages are small, script-free and `no-store`; everything echoed is escaped; no referrer leaves them.
 */
export function credentialRoutes(options: CredentialRoutesOptions): CredentialRoutes {
  const base = new URL(options.publicUrl).pathname.replace(/\/+$/, '');
  const secure = new URL(options.publicUrl).protocol === 'https:';
  const callbackPath = base + OAUTH_PATHS.callback;
  const document = JSON.stringify(clientMetadataDocument(options.publicUrl));
  const logger = options.logger ?? silentLogger;

  return (req, res) => {
    const route = routeOf(requestPath(req), base);
    if (route === undefined) return false;
    req.resume();
    if (route.kind === 'client') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, 'GET, HEAD');
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(document),
        'cache-control': 'public, max-age=3600',
      });
      res.end(req.method === 'HEAD' ? undefined : document);
      return true;
    }
    // GET only: a HEAD (a link previewer) must not spend the ticket or the state.
    if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
    const answer =
      route.kind === 'connect' ? connect(options.flow, route.ticket, res) : callback(options.flow, req, res);
    answer.catch((error: unknown) => {
      logger.error('OAuth client route failed', { error: error instanceof Error ? error.name : 'error' });
      if (!res.headersSent) page(res, 500, 'Something went wrong', 'The gateway failed. Try again.');
      else res.destroy();
    });
    return true;
  };

  async function connect(flow: ConnectFlow, ticket: string, res: ServerResponse): Promise<void> {
    try {
      const start = await flow.begin(ticket);
      res.writeHead(302, {
        location: start.url,
        'set-cookie': cookie(bindingCookieName(start.state), start.binding, BINDING_COOKIE_MAX_AGE_SEC),
        ...PAGE_HEADERS,
      });
      res.end();
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      page(res, error.status, 'Cannot connect', error.message);
    }
  }

  async function callback(flow: ConnectFlow, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const state = query.get('state');
    const cookieName = state ? bindingCookieName(state) : undefined;
    const binding = cookieName ? cookiesOf(req).get(cookieName) : undefined;
    // The binding is single use like the state: cleared whatever the outcome.
    const clear: Record<string, string> = cookieName ? { 'set-cookie': cookie(cookieName, '', 0) } : {};
    try {
      const { upstream } = await flow.complete(query, binding);
      page(res, 200, `Connected ${upstream}`, 'You can close this tab and retry in your MCP client.', clear);
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const title = error.upstream ? `Could not connect ${error.upstream}` : 'Could not connect';
      page(res, error.status, title, error.message, clear);
    }
  }

  function cookie(name: string, value: string, maxAgeSec: number): string {
    return `${name}=${value}; Path=${callbackPath}; Max-Age=${maxAgeSec}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }
}

type Route = { kind: 'client' } | { kind: 'connect'; ticket: string } | { kind: 'callback' };

function routeOf(path: string | undefined, base: string): Route | undefined {
  if (path === undefined) return undefined;
  // Behind a proxy that strips the public path, the bare paths arrive.
  const local = base && path.startsWith(`${base}/`) ? path.slice(base.length) : path;
  if (local === OAUTH_PATHS.clientMetadata) return { kind: 'client' };
  if (local === OAUTH_PATHS.callback) return { kind: 'callback' };
  if (local.startsWith(OAUTH_PATHS.connect)) {
    const ticket = local.slice(OAUTH_PATHS.connect.length);
    if (!ticket.includes('/')) return { kind: 'connect', ticket };
  }
  return undefined;
}

const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
};

function page(
  res: ServerResponse,
  status: number,
  title: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const html =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)} · ${CLIENT_NAME}</title>` +
    `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}` +
    `h1{font-size:1.4rem}</style></head>\n` +
    `<body data-status="${status}"><main><h1 id="title">${escapeHtml(title)}</h1>` +
    `<p id="message">${escapeHtml(message)}</p></main></body></html>\n`;
  res.writeHead(status, {
    ...PAGE_HEADERS,
    ...headers,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  });
  res.end(html);
}

function methodNotAllowed(res: ServerResponse, allow: string): true {
  page(res, 405, 'Method not allowed', `Use ${allow}.`, { allow });
  return true;
}

function cookiesOf(req: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
