import type { IncomingMessage } from 'node:http';
import { type JSONRPCMessage, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { encodeParamValue } from '../../param-headers/values.js';
import type { InboundFaults } from './faults.js';
import { retryAfterMs } from './retry-after.js';

// The HTTP shapes the upstream Streamable HTTP transport reads and writes.

const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** Which params field the modern era's `Mcp-Name` header mirrors, per method. */
const MCP_NAME_SOURCE: Record<string, string> = {
  'resources/read': 'uri',
  'tools/call': 'name',
  'prompts/get': 'name',
  // The Tasks extension (SEP-2663): a task's requests are routed by its id.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The modern era's body-derived headers, or undefined for a message without the envelope claim. */
export function modernHeaders(message: JSONRPCMessage): Record<string, string> | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: Record<string, unknown> };
  if (typeof m.method !== 'string' || m.id === undefined) return undefined;
  const version = (m.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== 'string') return undefined;
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': m.method };
  const field = MCP_NAME_SOURCE[m.method];
  const name = field === undefined ? undefined : m.params?.[field];
  if (typeof name === 'string') headers['mcp-name'] = encodeParamValue(name);
  return headers;
}

/** Headers the transport writes itself: a caller's per-message headers never replace them (as in the SDK). */
const RESERVED_HEADERS = new Set([
  'authorization',
  'dpop',
  'content-type',
  'content-length',
  'accept',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
]);

/**
 * The headers one POST adds to the transport's own: the modern body-derived ones, and the caller's
 * per-message headers (`TransportSendOptions.headers`: the SDK client's, and the gateway's, SEP-2243
 * `Mcp-Param-*` headers of a tool call), reserved names left out.
 */
export function messageHeaders(
  modern: Record<string, string> | undefined,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (extra === undefined) return modern;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra)) {
    const lower = name.toLowerCase();
    if (!RESERVED_HEADERS.has(lower)) headers[lower] = value;
  }
  return { ...headers, ...modern };
}

export function parseErrorFor(text: string, id: unknown): JSONRPCMessage | undefined {
  try {
    const parsed = JSON.parse(text) as { jsonrpc?: unknown; id?: unknown; error?: unknown };
    return parsed.jsonrpc === '2.0' && parsed.id === id && typeof parsed.error === 'object'
      ? (parsed as JSONRPCMessage)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The response is an event stream (media types are case-insensitive: `Text/Event-Stream` is one too). */
export function isEventStream(res: IncomingMessage): boolean {
  return String(res.headers['content-type'] ?? '')
    .toLowerCase()
    .includes('text/event-stream');
}

/** How long an error page may take to arrive before what came of it describes the failure. */
export const ERROR_PAGE_MS = 2_000;
/** How much of an HTTP error page is read to describe it. */
export const ERROR_PAGE_BYTES = 64 * 1024;

/**
 * The start of an error page: at most `maxBytes` of it, or what arrived within `timeoutMs`; the rest is
 * not waited for (the response is destroyed). A refusal whose body never ends fails at once, with what
 * its page said so far, instead of at the request's timeout.
 */
export function readErrorPage(
  res: IncomingMessage,
  maxBytes = ERROR_PAGE_BYTES,
  timeoutMs = ERROR_PAGE_MS,
): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      res.off('data', onData);
      resolve(Buffer.concat(chunks, Math.min(size, maxBytes)).toString('utf8'));
      if (!res.complete) res.destroy();
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk.subarray(0, Math.max(0, maxBytes - size)));
      size += chunk.length;
      if (size >= maxBytes) done();
    };
    const timer = setTimeout(done, timeoutMs);
    res.on('data', onData);
    res.once('end', done);
    res.once('error', done);
    res.once('close', done);
  });
}

/** A response body: its text, or, when it was over the limit, only its size (it was discarded as it arrived). */
export type Body = { text: string; bytes: number } | { text?: undefined; bytes: number };

/**
 * Reads a response body, keeping at most `maxBytes` of it: a bigger one is read to its end (so the
 * keep-alive connection stays usable) but only counted.
 */
export function readBody(res: IncomingMessage, maxBytes: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | undefined = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (chunks && size > maxBytes) chunks = undefined;
      chunks?.push(chunk);
    });
    res.once('end', () =>
      resolve(chunks ? { text: Buffer.concat(chunks, size).toString('utf8'), bytes: size } : { bytes: size }),
    );
    res.once('error', reject);
  });
}

/** Requests of the handshake: their HTTP failures are for the SDK's era negotiation to judge. */
const HANDSHAKE = new Set(['initialize', 'server/discover']);

/**
 * The id of a request that an HTTP error answering it fails alone (DESIGN §11), or undefined: the
 * handshake's failures are the era negotiation's, a notification's or response's are no request's.
 */
export function failsAlone(message: JSONRPCMessage): string | number | undefined {
  const { id, method } = message as { id?: string | number; method?: unknown };
  return typeof method === 'string' && !HANDSHAKE.has(method) ? id : undefined;
}

/** An HTTP failure in a line: `HTTP 500 Internal Server Error: <what its page says>`. */
export function httpFailure(status: number | string, statusText: string | undefined, body: string): string {
  const page = describePage(body);
  return `HTTP ${status}${statusText ? ` ${statusText}` : ''}${page ? `: ${page}` : ''}`;
}

/** What an HTTP error page says, in a line: its `<title>` or its text without markup, shortened. */
function describePage(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain;
}

/**
 * An HTTP error page (`text`) answering `message`: it fails that request alone when the guard takes
 * faults (an error page for one request: a 500 from the server or a proxy); otherwise (a handshake's, or
 * no guard) it is thrown typed like the SDK's own transports, so its version probe can classify it.
 */
export function failWithPage(
  message: JSONRPCMessage,
  res: IncomingMessage,
  text: string,
  faults: InboundFaults | undefined,
): void {
  const status = res.statusCode ?? 0;
  const alone = failsAlone(message);
  if (faults && alone !== undefined) {
    // A 429 or 503 that says when to come back: the caller is told (`data.retryAfterMs`).
    const wait = status === 429 || status === 503 ? retryAfterMs(res.headers['retry-after']) : undefined;
    const data = wait === undefined ? { status } : { status, retryAfterMs: wait };
    faults.failed(alone, httpFailure(status, res.statusMessage, text), data);
    return;
  }
  throw new SdkHttpError(
    SdkErrorCode.ClientHttpNotImplemented,
    `upstream answered HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ''}`,
    { status, statusText: res.statusMessage ?? '', text },
  );
}
