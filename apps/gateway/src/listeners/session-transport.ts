import type { ServerResponse } from 'node:http';
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { GatewayError } from '@switchyard/core';
import {
  type AnsweringTransport,
  errorResponse,
  type InboundMessageInfo,
  messageJson,
  type ResumableStreamInfo,
} from '@switchyard/core/listener';
import { type EventStoreLimits, SessionEventStore, type StoredEvent, type StreamLog } from './event-store.js';
import { sendError } from './http-errors.js';
import { Refusals } from './refusals.js';
import type { Exchange, Owner, SessionHttpTransportOptions } from './session-streams.js';
import { expectsPriming, KEEP_ALIVE_MS, SseChannel } from './sse.js';
import { cancelledRequest, isRequest, isResponse, type RequestId } from './wire.js';

export type { SessionHttpTransportOptions } from './session-streams.js';

const DEFAULT_RETRY_MS = 1000;
const DEFAULT_STREAM_TOOL_CALLS_AFTER_MS = 50;

/**
 * The server side of one legacy Streamable HTTP session, on plain node:http.
 *
 * A POST is answered with `application/json` unless the server sends a notification related to one of
 * its requests first (progress, log messages): then that POST switches to `text/event-stream` and the
 * response follows as the stream's last event. A `tools/call` from a 2025-11-25 client that has not
 * answered within `streamToolCallsAfterMs` becomes a stream too (long calls must survive a lost
 * connection; quick ones keep the cheaper JSON answer). Unsolicited messages go to the session's GET stream (dropped when none is
 * open). The JSON form keeps the hot path free of SSE framing; the SDK `Server` on top owns all protocol
 * semantics.
 *
 * Every SSE event carries an id naming its stream, and 2025-11-25 clients get a priming event (id, empty
 * data, `retry`) first. A stream whose connection drops keeps collecting its messages in the session's
 * bounded event store: a GET with `Last-Event-ID` replays what followed that id, then continues live (a
 * POST's stream until its requests are answered). An id the store cannot resume gets 400.
 */
export class SessionHttpTransport implements Transport, AnsweringTransport {
  readonly sessionId: string;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  // An idle session holds no tables: the event store comes with its first stream, the pending requests'
  // map with a request (and goes once all are answered), the injected ones' with a takeover's first.
  #events: SessionEventStore<Owner> | undefined;
  readonly #eventLimits: EventStoreLimits | undefined;
  readonly #retryMs: number;
  readonly #keepAliveMs: number;
  readonly #streamToolCallsAfterMs: number;
  #pending: Map<RequestId, Exchange> | undefined;
  #injected: Map<RequestId, (response: JSONRPCMessage | undefined) => void> | undefined;
  #standalone: StreamLog<Owner> | undefined;
  #protocolVersion: string | undefined;
  #closed = false;
  /** What the requests still in flight were answered with when the session closed (core's `AnsweringTransport`). */
  closedWith: GatewayError | undefined;
  /**
   * Set when this replica took the session over from one that died: the client's Last-Event-ID names
   * events that replica held, so a GET resuming one opens the stream anew instead of failing.
   */
  restored = false;

  constructor(sessionId: string, options: SessionHttpTransportOptions = {}) {
    this.sessionId = sessionId;
    this.#eventLimits = options.events;
    this.#retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
    this.#keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
    this.#streamToolCallsAfterMs = options.streamToolCallsAfterMs ?? DEFAULT_STREAM_TOOL_CALLS_AFTER_MS;
  }

  async start(): Promise<void> {}

  /** The session's resumable events, created when the first stream needs it. */
  get #store(): SessionEventStore<Owner> {
    this.#events ??= new SessionEventStore(this.#eventLimits);
    return this.#events;
  }

  /** The SDK `Server` calls this with the version `initialize` negotiated. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /** Hands the session one message that came with no exchange of its own (no HTTP answer is written). */
  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }

  /** Takes the already-parsed, envelope-checked body of a POST to this session. */
  handlePost(
    res: ServerResponse,
    body: JSONRPCMessage | JSONRPCMessage[],
    acceptsSse: boolean,
    protocolVersion?: string,
  ): void {
    const messages = Array.isArray(body) ? body : [body];
    const requests = messages.filter(isRequest);
    // A request by the id of one still waiting (or twice in one batch) is refused with its POST: taken
    // through, it replaced the first one's exchange, whose POST then never got its answer.
    const reused = requests.find(
      (r, i) => this.#pending?.get(r.id)?.waiting.has(r.id) || requests.findIndex((o) => o.id === r.id) < i,
    );
    if (reused) {
      sendError(res, Refusals.duplicateRequestId(reused.id), { id: reused.id, status: 400 });
      return;
    }
    for (const message of messages) {
      const cancelled = cancelledRequest(message);
      if (cancelled !== undefined) this.#cancelled(cancelled);
    }
    const exchange =
      requests.length === 0 ? undefined : this.#exchange(res, body, requests, acceptsSse, protocolVersion);
    if (!exchange) res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
    // A client that can resume the stream lets the gateway close it mid-call (SEP-1699), as the SDK's
    // transport hands its handlers `closeSSEStream`.
    const resumable = exchange?.priming === true && exchange.acceptsSse;
    for (const message of messages) {
      if (resumable && isRequest(message)) {
        const { id } = message;
        const extra: ResumableStreamInfo = {
          resumableStream: { close: (retryMs, resumed) => this.pollStream(id, retryMs, resumed) },
        };
        this.onmessage?.(message, extra);
      } else this.onmessage?.(message);
    }
  }

  /** The exchange that answers the requests of one POST. */
  #exchange(
    res: ServerResponse,
    body: JSONRPCMessage | JSONRPCMessage[],
    requests: { id: RequestId; method: string }[],
    acceptsSse: boolean,
    protocolVersion: string | undefined,
  ): Exchange {
    const exchange: Exchange = {
      kind: 'post',
      waiting: new Set(requests.map((r) => r.id)),
      responses: [],
      batch: Array.isArray(body),
      answered: false,
      acceptsSse,
      priming: expectsPriming(this.#protocolVersion ?? protocolVersion),
      res,
    };
    this.#pending ??= new Map();
    for (const { id } of requests) this.#pending.set(id, exchange);
    res.once('close', () => this.#postClosed(exchange));
    // A tool call that runs long is answered on a resumable stream.
    if (exchange.priming && acceptsSse && requests.some((r) => r.method === 'tools/call')) {
      exchange.streamTimer = setTimeout(() => {
        if (!exchange.log && exchange.res && exchange.waiting.size > 0) this.#toSse(exchange);
      }, this.#streamToolCallsAfterMs);
      exchange.streamTimer.unref();
    }
    return exchange;
  }

  /**
   * Closes the connection that reads request `id`'s stream mid-call so that the client resumes it with
   * `GET` + `Last-Event-ID` (SEP-1699 polling; the SDK's transport has `closeSSEStream`), after an SSE
   * `retry` of `retryMs` when given; `resumed` runs when it comes back. A JSON answer becomes a primed
   * stream first. Nothing happens for a client that cannot resume (older than 2025-11-25, or not accepting
   * SSE) or once the request is answered. What follows waits in the session's event store.
   */
  pollStream(id: RequestId, retryMs?: number, resumed?: () => void): void {
    const exchange = this.#pending?.get(id);
    if (!exchange?.priming || !exchange.acceptsSse || !exchange.waiting.has(id)) return;
    if (!exchange.log) {
      if (!exchange.res) return;
      this.#toSse(exchange);
    }
    if (resumed) {
      exchange.resumed ??= new Map();
      exchange.resumed.set(id, resumed);
    }
    const channel = exchange.channel;
    if (!channel?.open) return;
    if (retryMs !== undefined) channel.retry(retryMs);
    channel.end();
  }

  /** Opens the session's standalone stream (GET), or resumes a stream with `Last-Event-ID`. */
  handleGet(res: ServerResponse, request: { lastEventId?: string; protocolVersion?: string } = {}): void {
    const priming = expectsPriming(this.#protocolVersion ?? request.protocolVersion);
    if (request.lastEventId !== undefined && !(this.restored && !this.#store.replay(request.lastEventId))) {
      this.#resume(res, request.lastEventId, priming);
      return;
    }
    if (this.#standalone?.owner.channel?.open) {
      sendError(res, Refusals.streamConflict());
      return;
    }
    // A GET without Last-Event-ID starts a new stream: what the old one still held is not replayed onto it.
    if (this.#standalone) this.#store.drop(this.#standalone);
    this.#standalone = this.#store.open('get', { kind: 'get' });
    this.#attach(this.#standalone, res, priming);
  }

  /**
   * Delivers a message the gateway sends on the client's behalf (a replica restoring a session it takes
   * over replays the client's `initialize`, log level and subscriptions); a request resolves with its
   * response, which no client sees. It is the gateway's request (`gatewayRequest`): the client was charged
   * and audited for it when it sent it first.
   */
  inject(message: JSONRPCMessage): Promise<JSONRPCMessage | undefined> {
    const info: InboundMessageInfo = { gatewayRequest: true };
    if (!isRequest(message)) {
      this.onmessage?.(message, info);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      this.#injected ??= new Map();
      this.#injected.set(message.id, resolve);
      this.onmessage?.(message, info);
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) return;
    if (isResponse(message)) {
      const id = (message as { id: RequestId }).id;
      const injected = this.#injected?.get(id);
      if (injected) {
        this.#injected?.delete(id);
        return injected(message);
      }
      const exchange = this.#pending?.get(id);
      if (!exchange) return;
      this.#settled(id);
      exchange.waiting.delete(id);
      exchange.answered = true;
      if (exchange.log) this.#emit(exchange.log, message);
      else exchange.responses.push(message);
      if (exchange.waiting.size === 0) this.#finish(exchange);
      return;
    }
    const related = options?.relatedRequestId;
    const exchange = related === undefined ? undefined : this.#pending?.get(related);
    if (exchange?.log) return this.#emit(exchange.log, message);
    if (exchange?.acceptsSse && exchange.res) {
      this.#emit(this.#toSse(exchange), message);
      return;
    }
    if (this.#standalone && !this.#standalone.dropped) this.#emit(this.#standalone, message);
  }

  /**
   * Ends the session. A request still in flight is answered with `error` (default: its session is gone),
   * so no POST ends with an empty 200 or a stream without its answer.
   */
  async close(error: GatewayError = Refusals.sessionClosed()): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Read by core as the session closes (`onclose` below): their handling is aborted with it, so their
    // outcome (the audit record, the response hooks) is this error, not the client's cancellation.
    this.closedWith = error;
    for (const exchange of new Set(this.#pending?.values())) this.#abandon(exchange, error);
    if (this.#events) {
      for (const log of this.#events.streams()) log.owner.channel?.end();
      this.#events.dispose();
    }
    this.#pending = undefined;
    for (const resolve of this.#injected?.values() ?? []) resolve(undefined);
    this.#injected = undefined;
    this.#standalone = undefined;
    this.onclose?.();
  }

  /** Turns a POST's answer into a resumable SSE stream on its own response. */
  #toSse(exchange: Exchange): StreamLog<Owner> {
    const log = this.#store.open('post', exchange);
    exchange.log = log;
    if (exchange.res) this.#attach(log, exchange.res, exchange.priming);
    for (const earlier of exchange.responses) this.#emit(log, earlier);
    exchange.responses = [];
    return log;
  }

  /** Makes `res` the connection that reads `log` (the newest connection wins), priming it first. */
  #attach(log: StreamLog<Owner>, res: ServerResponse, priming: boolean, resumedFrom?: string): SseChannel {
    const owner = log.owner;
    const previous = owner.channel;
    const channel = new SseChannel(res, this.sessionId, this.#keepAliveMs);
    owner.channel = channel;
    previous?.end();
    res.once('close', () => {
      if (owner.channel !== channel) return;
      owner.channel = undefined;
      // A standalone stream nobody reads stays resumable for the grace period; a POST's stream until
      // its requests are answered (then the grace period).
      if (owner.kind === 'get') this.#store.settle(log);
    });
    // A resumed stream is primed with the client's own Last-Event-ID: an id after the replayed events
    // would make a client that drops again skip them.
    if (priming) channel.prime(resumedFrom ?? this.#store.mark(log), this.#retryMs);
    return channel;
  }

  #resume(res: ServerResponse, lastEventId: string, priming: boolean): void {
    const found = this.#store.replay(lastEventId);
    if (!found) {
      sendError(res, Refusals.invalidLastEventId(lastEventId));
      return;
    }
    const { log, events } = found;
    if (log.kind === 'get') this.#store.revive(log);
    const channel = this.#attach(log, res, priming, lastEventId);
    replay(channel, events);
    // The client came back to a stream the gateway closed for polling: the upstream's may resume now.
    const owner = log.owner;
    if (owner.kind === 'post' && owner.resumed) {
      const resumed = [...owner.resumed.values()];
      owner.resumed = undefined;
      for (const resume of resumed) resume();
    }
    // A POST's stream ends once its requests are answered; the standalone stream goes on.
    if (log.owner.kind === 'post' && log.owner.waiting.size === 0) channel.end();
  }

  #emit(log: StreamLog<Owner>, message: JSONRPCMessage): void {
    const data = messageJson(message);
    const id = this.#store.append(log, data);
    const channel = log.owner.channel;
    if (channel?.open) channel.event(id, data);
  }

  #finish(exchange: Exchange): void {
    clearTimeout(exchange.streamTimer);
    if (exchange.log) {
      this.#store.settle(exchange.log);
      exchange.channel?.end();
      return;
    }
    const { res } = exchange;
    if (!res || res.writableEnded || res.destroyed) return;
    if (exchange.responses.length === 0) {
      // Every request was cancelled: the spec has no response for them.
      res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
      return;
    }
    this.#answerJson(res, exchange.batch ? exchange.responses : exchange.responses[0]);
  }

  /** A POST's JSON answer: one response, or a batch's. */
  #answerJson(res: ServerResponse, body: JSONRPCMessage | JSONRPCMessage[] | undefined): void {
    const payload = messageJson(body);
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      'mcp-session-id': this.sessionId,
    });
    res.end(payload);
  }

  /** Answers the requests of `exchange` still waiting with `error`, then ends it. */
  #abandon(exchange: Exchange, error: GatewayError): void {
    clearTimeout(exchange.streamTimer);
    const waiting = [...exchange.waiting];
    const errors = waiting.map((id) => errorResponse(id, error) as unknown as JSONRPCMessage);
    exchange.waiting.clear();
    if (exchange.log) {
      for (const message of errors) this.#emit(exchange.log, message);
      exchange.log.owner.channel?.end();
      return;
    }
    const { res } = exchange;
    if (!res || res.writableEnded || res.destroyed) return;
    if (res.headersSent) return void res.end();
    if (!exchange.batch && exchange.responses.length === 0) {
      sendError(res, error, { id: waiting[0] ?? null });
      return;
    }
    const responses = [...exchange.responses, ...errors];
    this.#answerJson(res, exchange.batch ? responses : responses[0]);
  }

  /** The POST's connection closed. An SSE answer outlives it (a GET can resume it); a JSON answer cannot. */
  #postClosed(exchange: Exchange): void {
    exchange.res = undefined;
    clearTimeout(exchange.streamTimer);
    if (exchange.log) return;
    for (const id of exchange.waiting) if (this.#pending?.get(id) === exchange) this.#settled(id);
  }

  /** Request `id` waits no more; the last one to go takes the map with it. */
  #settled(id: RequestId): void {
    this.#pending?.delete(id);
    if (this.#pending?.size === 0) this.#pending = undefined;
  }

  /**
   * A cancelled request gets no response: stop waiting for it. A stream left with nothing the client
   * still wants is forgotten at once, so a client resuming it hears 400 instead of polling an empty stream.
   */
  #cancelled(id: RequestId): void {
    const exchange = this.#pending?.get(id);
    if (!exchange) return;
    this.#settled(id);
    exchange.waiting.delete(id);
    if (exchange.waiting.size > 0) return;
    if (exchange.log && !exchange.answered) this.#store.drop(exchange.log);
    this.#finish(exchange);
  }
}

function replay(channel: SseChannel, events: StoredEvent[]): void {
  for (const event of events) channel.event(event.id, event.data);
}
