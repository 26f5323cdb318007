import type { IncomingMessage, ServerResponse } from 'node:http';
import { rewriteBody } from './http-body-rewriter.js';
import type { MisbehaveMode } from './modes.js';
import { ResponseRewriter, rewritesResponses } from './response-rewriter.js';

/** The HTML page `http-500` answers with. */
export const HTTP_500_PAGE =
  '<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>\n' +
  '<body><h1>Internal Server Error</h1><p>The server encountered an internal error.</p></body></html>\n';

/** The tool whose calls `http-500` answers with HTTP 500. */
export const HTTP_500_TOOL = 'http_500';

/** The tool whose calls `http-500` answers with HTTP 429 and `Retry-After: 7`, as a server that is rate limiting. */
export const HTTP_429_TOOL = 'http_429';

/** The `Retry-After` (seconds) of the 429 answer. */
export const HTTP_429_RETRY_AFTER_S = 7;

/**
 * Sees every parsed MCP POST before it is served; returns true when it answered (or holds) the request
 * itself. Installed by the HTTP listener right after it read the body.
 */
export type HttpIntercept = (req: IncomingMessage, res: ServerResponse, body: unknown) => boolean;

/** What the shim reports into (the server's stats). */
export interface HttpShimObserver {
  /** A JSON-RPC request the shim answered or holds itself (it never reaches a server instance). */
  intercepted(method: string, toolName: string | undefined): void;
}

interface RequestShape {
  method: string;
  toolName: string | undefined;
}

/** The JSON-RPC requests in a POST body (one, or a batch). */
function requestsIn(body: unknown): RequestShape[] {
  const messages = Array.isArray(body) ? body : [body];
  const requests: RequestShape[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
    if (typeof method !== 'string' || id === undefined) continue;
    const name = (params as { name?: unknown } | null | undefined)?.name;
    requests.push({
      method,
      toolName: method === 'tools/call' && typeof name === 'string' ? name : undefined,
    });
  }
  return requests;
}

/**
 * The HTTP side of the misbehave modes, for both the sessionful 2025 endpoint and the stateless modern
 * handler: `hang-handshake` holds every POST open unanswered; `http-500` answers a `tools/call` of
 * `http_500` with a 500 HTML page and one of `http_429` with a 429 and `Retry-After`; the response modes rewrite the JSON-RPC messages of 200 responses (SSE
 * event by event; a JSON body that becomes several messages is sent as an SSE stream instead). Returns
 * undefined when no mode concerns HTTP.
 */
export function createHttpIntercept(
  modes: ReadonlySet<MisbehaveMode>,
  observer: HttpShimObserver,
): HttpIntercept | undefined {
  const rewriter = rewritesResponses(modes) ? new ResponseRewriter(modes) : undefined;
  const hang = modes.has('hang-handshake');
  const fail500 = modes.has('http-500');
  if (rewriter === undefined && !hang && !fail500) return undefined;
  return (_req, res, body) => {
    const requests = requestsIn(body);
    if (hang) {
      // Read and counted; the response stays open until the client or the listener gives up.
      for (const r of requests) observer.intercepted(r.method, r.toolName);
      return true;
    }
    if (fail500 && requests.some((r) => r.toolName === HTTP_500_TOOL)) {
      for (const r of requests) observer.intercepted(r.method, r.toolName);
      res.writeHead(500, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(HTTP_500_PAGE),
      });
      res.end(HTTP_500_PAGE);
      return true;
    }
    if (fail500 && requests.some((r) => r.toolName === HTTP_429_TOOL)) {
      for (const r of requests) observer.intercepted(r.method, r.toolName);
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(HTTP_429_RETRY_AFTER_S) });
      res.end('Too Many Requests\n');
      return true;
    }
    if (rewriter !== undefined) rewriteBody(res, (message) => rewriter.rewrite(message));
    return false;
  };
}
