import type { IncomingMessage } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import type { JSONRPCMessage, TransportSendOptions } from '@modelcontextprotocol/client';
import { ErrorCode } from '../../errors.js';
import type { UpstreamCredentials } from '../../upstream/auth/upstream-auth.js';
import type { InboundFaults, UpstreamClientTransport } from './faults.js';
import { consumeEvents, type EventSink } from './http-events.js';
import {
  failWithPage,
  isEventStream,
  messageHeaders,
  modernHeaders,
  parseErrorFor,
  readBody,
  readErrorPage,
} from './http-wire.js';
import { StreamResumptions } from './stream-resumption.js';

/** Errors of a reused keep-alive socket the server had already closed. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);
const ACCEPT = 'application/json, text/event-stream';
const STREAM_RETRY_MS = [250, 1_000, 5_000, 15_000, 30_000];
/** Without a guard's limit, a response body may be this big. */
const FALLBACK_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The client side of Streamable HTTP on plain node:http with a keep-alive agent: POST per message, JSON
 * or event-stream answers. Legacy era (2024-11-05 … 2025-11-25): the session id, the session's GET
 * stream for server-initiated messages, DELETE on close. Modern era (2026-07-28, requests carrying the
 * protocol-version envelope): stateless POSTs with `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * derived from the body, the sender's per-message headers (a tool call's `Mcp-Param-*`), and a
 * per-request stream the SDK can close (subscriptions/listen). With `credentials`, every request carries
 * the gateway's own `Authorization` for the upstream (a message's, on behalf of the caller it serves),
 * and a 401 is retried once with a fresh token. A 2025 request's stream that the upstream closes before
 * answering, after an event id, is resumed with `GET` + `Last-Event-ID` (SEP-1699 polling,
 * `StreamResumptions`), and `onpoll` hears of each such close. The SDK `Client` on top owns all
 * protocol semantics; this only moves bytes, without the web-streams machinery of `fetch` on every hop.
 */
export class HttpClientTransport implements UpstreamClientTransport {
  /** Each request has its own HTTP exchange, so closing it (requestSignal) ends a modern listen stream. */
  readonly hasPerRequestStream = true;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /**
   * The upstream closed the response stream of our request `id` unanswered (it polls, SEP-1699): it is
   * resumed after `retryMs`, or at once by `resumeNow`.
   */
  onpoll?: (id: string | number, retryMs: number | undefined, resumeNow: () => void) => void;
  /** This transport resumes the response streams the upstream closes mid-request (see `onpoll`). */
  readonly resumesStreams = true;
  sessionId: string | undefined;
  faults?: InboundFaults;
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;
  #protocolVersion: string | undefined;
  readonly #credentials: UpstreamCredentials | undefined;
  /** The session's GET stream: its current request once sent. */
  #stream: { req?: http.ClientRequest } | undefined;
  #streamAttempt = 0;
  #streamTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Server-to-client requests that arrived on one of our requests' response streams, by their id. */
  readonly #related = new Map<string | number, string | number>();

  readonly #sink: EventSink = {
    deliver: (message) => this.#deliver(message),
    relate: (inbound, awaited) => this.#related.set(inbound, awaited),
    error: (error) => this.onerror?.(error),
    unparsable: (text) => this.faults?.unparsable(text, 'an event-stream event'),
    oversized: (id, bytes) => {
      if (this.faults) this.faults.oversized(id, bytes);
      else this.onerror?.(new Error(`dropped an upstream event stream at ${bytes} bytes (over the limit)`));
    },
    maxBytes: () => this.#maxBytes(),
    closed: () => this.#closed,
    resume: (request, position) => this.#resumptions.resume(request, position),
  };

  /** Requests whose response stream the upstream closed unanswered, being resumed. */
  readonly #resumptions = new StreamResumptions({
    reconnect: (request, lastEventId, signal) =>
      this.#authorized(request, (authorization) => this.#resumeStream(lastEventId, signal, authorization)),
    read: (res, request, position, signal) =>
      consumeEvents(res, this.#sink, undefined, { request, position, signal }),
    fail: (id, detail) =>
      this.#deliver({
        jsonrpc: '2.0',
        id,
        error: {
          code: ErrorCode.UpstreamUnavailable,
          message: detail,
          data: { reason: 'upstream_unavailable' },
        },
      } as JSONRPCMessage),
    sessionLost: () => void this.close(),
    polled: (id, retryMs, resumeNow) => this.onpoll?.(id, retryMs, resumeNow),
  });

  constructor(url: URL, headers: Record<string, string> = {}, credentials?: UpstreamCredentials) {
    this.#url = url;
    this.#headers = headers;
    this.#credentials = credentials;
    const secure = url.protocol === 'https:';
    this.#request = secure ? https.request : http.request;
    this.#agent = new (secure ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 256 });
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /** Which of our requests an inbound request arrived with (it came on that request's response stream). */
  relatedRequestOf(inboundId: string | number): string | number | undefined {
    return this.#related.get(inboundId);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) throw new Error('transport closed');
    const answered = (message as { id?: string | number; method?: unknown }).id;
    if (answered !== undefined && !('method' in message)) this.#related.delete(answered);
    const cancelled = cancelledRequest(message);
    if (cancelled !== undefined) this.#resumptions.stop(cancelled, true);
    const modern = modernHeaders(message);
    const headers = messageHeaders(modern, options?.headers);
    const body = JSON.stringify(message);
    const res = await this.#authorized(message, (authorization) =>
      this.#call('POST', body, { message: headers, authorization }, options?.requestSignal),
    );
    const sessionId = res.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && this.sessionId === undefined) this.sessionId = sessionId;
    const status = res.statusCode ?? 0;
    if (status === 404 && this.sessionId !== undefined) {
      res.resume();
      const error = new Error('the upstream no longer knows this session (HTTP 404)');
      void this.close();
      throw error;
    }
    const { id, method } = message as { id?: string | number; method?: string };
    if (status < 200 || status >= 300) {
      const text = await readErrorPage(res);
      // A modern request's 4xx usually carries its JSON-RPC error (e.g. -32022): deliver it as such.
      if (modern && status >= 400 && status < 500) {
        const answer = parseErrorFor(text, id);
        if (answer) {
          this.#deliver(answer);
          return;
        }
      }
      return failWithPage(message, res, text, this.faults);
    }
    const awaited = method !== undefined ? id : undefined;
    if (status === 202) {
      res.resume();
    } else if (isEventStream(res)) {
      const request = awaited === undefined ? undefined : message;
      // A 2025 session's request stream may be closed and resumed (SEP-1699); a 2026-07-28 one may not.
      const position = request === undefined || modern ? undefined : { messages: 0 };
      consumeEvents(
        res,
        this.#sink,
        undefined,
        request && { request, position, signal: options?.requestSignal },
      );
    } else {
      this.#json(await readBody(res, this.#maxBytes()), awaited);
    }
    if (method === 'notifications/initialized') this.#openStream();
  }

  #maxBytes(): number {
    return this.faults?.maxBytes() ?? FALLBACK_MAX_BODY_BYTES;
  }

  /** A JSON answer to our request `awaited`: delivered, or reported when it is too big or no JSON. */
  #json(body: Awaited<ReturnType<typeof readBody>>, awaited: string | number | undefined): void {
    if (body.text === undefined) {
      if (!this.faults) throw new Error(`upstream response of ${body.bytes} bytes is over the limit`);
      this.faults.oversized(awaited, body.bytes);
      return;
    }
    let payload: JSONRPCMessage | JSONRPCMessage[];
    try {
      payload = parseJsonBody(body.text);
    } catch (error) {
      if (!this.faults) throw error;
      this.faults.unparsable(body.text, 'a response body');
      if (awaited !== undefined) this.faults.failed(awaited, 'the response body is not JSON');
      return;
    }
    this.#deliver(payload);
  }

  #deliver(payload: JSONRPCMessage | JSONRPCMessage[]): void {
    for (const m of Array.isArray(payload) ? payload : [payload]) {
      // An answer ends its request's resumption, whichever stream brought it.
      if (this.#resumptions.active && !('method' in m)) {
        const id = (m as { id?: string | number }).id;
        if (id !== undefined) this.#resumptions.stop(id, false);
      }
      this.onmessage?.(m);
    }
  }

  /** Sends with the credentials for `message` (none configured: as is); a 401 is retried once. */
  #authorized(
    message: JSONRPCMessage | undefined,
    send: (authorization?: { authorization: string }) => Promise<IncomingMessage>,
  ): Promise<IncomingMessage> {
    if (this.#credentials === undefined) return send();
    return this.#credentials.authorize(message, {
      send: (authorization) => send({ authorization }),
      status: (res) => res.statusCode ?? 0,
      discard: (res) => res.resume(),
    });
  }

  /** The GET stream carries the upstream's own notifications (resources/updated, list_changed). */
  #openStream(): void {
    if (this.#closed || this.#stream) return;
    const stream: { req?: http.ClientRequest } = {};
    this.#stream = stream;
    const retry = () => {
      if (this.#stream !== stream) return;
      this.#stream = undefined;
      if (this.#closed) return;
      const delay = STREAM_RETRY_MS[Math.min(this.#streamAttempt, STREAM_RETRY_MS.length - 1)]!;
      this.#streamAttempt += 1;
      this.#streamTimer = setTimeout(() => this.#openStream(), delay);
      this.#streamTimer.unref();
    };
    const get = (authorization?: { authorization: string }) =>
      new Promise<IncomingMessage>((resolve, reject) => {
        if (this.#closed) throw new Error('transport closed');
        const headers = { ...this.#sessionHeaders(), ...authorization, accept: 'text/event-stream' };
        const req = this.#request(this.#url, { method: 'GET', agent: this.#agent, headers });
        stream.req = req;
        req.once('response', resolve);
        req.on('error', (error) => {
          reject(error);
          if (stream.req === req) retry();
        });
        req.end();
      });
    this.#authorized(undefined, get).then((res) => {
      const status = res.statusCode ?? 0;
      if (status === 405) {
        res.resume(); // the upstream offers no stream: nothing to listen to
        return;
      }
      if (status === 404) {
        res.resume();
        this.onerror?.(new Error('the upstream no longer knows this session (HTTP 404 on its stream)'));
        void this.close();
        return;
      }
      if (status !== 200 || !isEventStream(res)) {
        res.resume();
        retry();
        return;
      }
      this.#streamAttempt = 0;
      consumeEvents(res, this.#sink, retry);
    }, retry);
  }

  /** `GET` with `Last-Event-ID`: the upstream replays what followed that event, then goes on live. */
  #resumeStream(
    lastEventId: string,
    signal: AbortSignal,
    authorization?: { authorization: string },
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      if (this.#closed) throw new Error('transport closed');
      const headers = {
        ...this.#sessionHeaders(),
        ...authorization,
        accept: 'text/event-stream',
        'last-event-id': lastEventId,
      };
      const req = this.#request(this.#url, { method: 'GET', agent: this.#agent, headers, signal });
      req.once('response', resolve);
      req.once('error', reject);
      req.end();
    });
  }

  #sessionHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.#headers };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion;
    return headers;
  }

  /**
   * One request to the endpoint: the session's headers, then the message's, then the authorization, then
   * `accept`.
   * Built as a literal that starts with a key: one that starts with a spread (`{ ...a, ...b, key }`) gets a
   * new hidden class on every request on Node 20's V8 (docs/architecture.md, speed).
   */
  #call(
    method: 'POST' | 'DELETE',
    body: string | undefined,
    extra: { message?: Record<string, string>; authorization?: Record<string, string> },
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {
        accept: ACCEPT,
        ...this.#sessionHeaders(),
        ...extra.message,
        ...extra.authorization,
      };
      headers.accept = ACCEPT;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const send = (retried: boolean) => {
        // The retry bypasses the pool: another pooled socket may be closing just as this one was.
        const agent = retried ? false : this.#agent;
        const req = this.#request(this.#url, { method, agent, headers, signal });
        req.once('response', resolve);
        req.once('error', (error: NodeJS.ErrnoException) => {
          // A pooled socket the upstream closed just as we reused it: the request never reached it.
          // Send it once more on a fresh socket (Node's documented pattern) instead of failing the call.
          if (!retried && req.reusedSocket && STALE_SOCKET.has(error.code ?? '') && !signal?.aborted)
            send(true);
          else reject(error);
        });
        req.end(body);
      };
      send(false);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#resumptions.close();
    if (this.#streamTimer) clearTimeout(this.#streamTimer);
    this.#stream?.req?.destroy();
    this.#stream = undefined;
    if (this.sessionId !== undefined) {
      // Best effort: tell the upstream the session is over, without holding up shutdown.
      await Promise.race([
        this.#authorized(undefined, (authorization) =>
          this.#call('DELETE', undefined, { authorization }),
        ).then(
          (res) => res.resume(),
          () => {},
        ),
        new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
      ]);
    }
    this.#agent.destroy();
    this.onclose?.();
  }
}

/** The id of the request a `notifications/cancelled` message cancels. */
function cancelledRequest(message: JSONRPCMessage): string | number | undefined {
  const m = message as { method?: unknown; params?: { requestId?: unknown } };
  if (m.method !== 'notifications/cancelled') return undefined;
  const id = m.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * A JSON answer: one message or a batch, or, as some servers write an `application/json` answer that
 * carries a notification before the result, one message per line (what an event stream would have sent
 * as events). Throws when it is none of these.
 */
function parseJsonBody(text: string): JSONRPCMessage | JSONRPCMessage[] {
  try {
    return JSON.parse(text) as JSONRPCMessage | JSONRPCMessage[];
  } catch (error) {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    if (lines.length < 2) throw error;
    return lines.map((line) => JSON.parse(line) as JSONRPCMessage);
  }
}
