import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { Identity } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';
import type { TransportLayer } from './layered-transport.js';
import type { RequestOrigin } from './origin.js';

type RequestId = string | number;

/** A transport that knows which of our requests an inbound request arrived with (Streamable HTTP). */
export interface RelatingTransport {
  relatedRequestOf(inboundId: RequestId): RequestId | undefined;
}

/** A transport that resumes the response streams the upstream closes mid-request (SEP-1699 polling). */
export interface ResumingTransport {
  readonly resumesStreams: true;
  onpoll?: (id: RequestId, retryMs: number | undefined, resumeNow: () => void) => void;
}

/**
 * Works out which downstream request an upstream's server-to-client request (sampling, elicitation,
 * roots) belongs to. Each outgoing request is noted with the origin that caused it; on Streamable HTTP
 * the inbound request arrives on that request's own response stream, which names it exactly. On a
 * single-channel transport (stdio, WebSocket, SSE) nothing on the wire relates them: then the request
 * belongs to the one session with a request in flight, and is refused when several could have caused it.
 */
export class CallCorrelation {
  readonly #byId = new Map<RequestId, RequestOrigin>();
  readonly #inflight = new Set<RequestOrigin>();
  #next: RequestOrigin | undefined;
  /** The id of the request `#next`'s start sent (read back by `track`). */
  #sent: RequestId | undefined;
  #relating: RelatingTransport | undefined;

  /** Origins with a request in flight (for routing request-related notifications). */
  get inflight(): readonly RequestOrigin[] {
    return [...this.#inflight];
  }

  /**
   * The layer over the upstream transport: outgoing requests are noted with the origin `send()` was called
   * for, responses forget them. `transport` is the transport itself (what it can tell and do beyond
   * `Transport`: relate an upstream request to ours, poll a request's stream).
   */
  layer(transport: Transport): TransportLayer {
    this.#relating =
      typeof (transport as Partial<RelatingTransport>).relatedRequestOf === 'function'
        ? (transport as unknown as RelatingTransport)
        : undefined;
    // The upstream polls a request's stream: a downstream client that can resume its own is polled too, and
    // its coming back resumes the upstream's (it owns the upstream's `retry`, passed on to it).
    if ((transport as Partial<ResumingTransport>).resumesStreams === true)
      (transport as unknown as ResumingTransport).onpoll = (id, retryMs, resumeNow) =>
        this.#byId.get(id)?.context?.resumableStream?.close(retryMs, resumeNow);
    const send: TransportLayer['send'] = (message, options, next) => {
      const id = requestId(message);
      if (id !== undefined && this.#next) {
        this.#byId.set(id, this.#next);
        this.#sent = id;
      }
      return next(message, options);
    };
    // The SDK dispatches notifications a microtask later but responses at once: a response right behind
    // a progress notification would retire the request (and its progress handler) before the progress is
    // seen. Such a response waits a turn.
    let notified = false;
    return {
      send,
      receive: (message, extra, deliver) => {
        const answered = responseId(message);
        if (answered === undefined) {
          if (!notified && isNotification(message)) {
            notified = true;
            setImmediate(() => {
              notified = false;
            });
          }
          deliver(message, extra);
          return;
        }
        this.#byId.delete(answered);
        if (notified) setImmediate(() => deliver(message, extra));
        else deliver(message, extra);
      },
    };
  }

  /**
   * Runs `start`, which must hand its request to the transport synchronously (the SDK's `request()`
   * does), noting that the request belongs to `origin`; `origin` counts as in flight, and the request is
   * noted, until it settles. A request given up (cancelled, timed out) gets no response, by the
   * specification: its settling, not a response, is what forgets it.
   */
  track<T extends Promise<unknown>>(origin: RequestOrigin, start: () => T): T {
    this.#next = origin;
    this.#sent = undefined;
    this.#inflight.add(origin);
    let pending: T;
    try {
      pending = start();
    } finally {
      this.#next = undefined;
    }
    const id = this.#sent;
    this.#sent = undefined;
    const settled = () => {
      this.#inflight.delete(origin);
      if (id !== undefined && this.#byId.get(id) === origin) this.#byId.delete(id);
    };
    void pending.then(settled, settled);
    return pending;
  }

  /** How many of our requests are noted (tests: a request given up is forgotten). */
  get noted(): number {
    return this.#byId.size;
  }

  /**
   * Answers a server-to-client request (sampling, elicitation, roots) through the downstream request
   * that caused it; refuses with a clear error when that cannot be told or that client cannot be asked.
   */
  async relay(
    method: string,
    params: Record<string, unknown>,
    inboundId: RequestId,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const found = this.originOf(inboundId);
    if (!found.origin) {
      const why =
        found.ambiguous > 1
          ? `requests of ${found.ambiguous} client sessions are in flight on this upstream, and nothing on its transport says which one it belongs to`
          : 'it arrived while no client request was in flight; such requests are answered by the client whose request caused them';
      throw new GatewayError(ErrorCode.MethodNotFound, `Switchyard cannot relay ${method}: ${why}.`);
    }
    if (!found.origin.ask) {
      throw new GatewayError(
        ErrorCode.MethodNotFound,
        `Switchyard cannot relay ${method}: the client request it belongs to cannot be asked anything.`,
      );
    }
    return found.origin.ask(method, params, signal);
  }

  /** The caller an outgoing request is sent for (undefined: the gateway's own request, or not a request). */
  callerOf(message: JSONRPCMessage): Identity | undefined {
    const id = requestId(message);
    return id === undefined ? undefined : this.#byId.get(id)?.context?.identity;
  }

  /** The origin an inbound request belongs to, or why it cannot be told. */
  originOf(inboundId: RequestId): { origin: RequestOrigin } | { origin?: undefined; ambiguous: number } {
    const related = this.#relating?.relatedRequestOf(inboundId);
    const exact = related === undefined ? undefined : this.#byId.get(related);
    if (exact) return { origin: exact };
    const candidates = [...this.#inflight].filter((o) => o.ask !== undefined);
    const sessions = new Set(candidates.map((o) => o.sessionId));
    if (sessions.size === 1) return { origin: candidates[candidates.length - 1]! };
    return { ambiguous: sessions.size };
  }
}

function requestId(message: JSONRPCMessage): RequestId | undefined {
  const m = message as { method?: unknown; id?: unknown };
  return typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')
    ? m.id
    : undefined;
}

function isNotification(message: JSONRPCMessage): boolean {
  const m = message as { method?: unknown; id?: unknown };
  return typeof m.method === 'string' && m.id === undefined;
}

function responseId(message: JSONRPCMessage): RequestId | undefined {
  const m = message as { method?: unknown; id?: unknown };
  if (m.method !== undefined) return undefined;
  return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
}
