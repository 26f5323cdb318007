import { classifyInboundRequest, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import type { SessionSink } from '../context.js';
import type { GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { envelopeVersion, isLegacyVersion } from './era.js';
import { InFlightRequests } from './in-flight.js';
import { answerModern, MODERN_VERSIONS, modernRoute } from './modern-answers.js';
import type { InboundTaker } from './routed-transport.js';

type RequestId = string | number;

/**
 * The gateway answering a 2026-07-28 request on a session's own channel (stdio, WebSocket) itself, as it
 * does over HTTP (`answerModern`): one classification by the SDK's classifier (the envelope checked as the
 * specification says), one context, one `gateway.handle`, one response sent on the channel, notifications
 * related to it (progress, log messages) sent before it. What stays with the session's SDK `Server`:
 * `server/discover`, `subscriptions/listen`, methods nothing answers, revisions the gateway does not serve,
 * and everything on a session that negotiated a legacy revision (`LegacyAnswers`).
 */
export class ModernSessionAnswers implements InboundTaker {
  readonly #gateway: Gateway;
  readonly #sink: SessionSink;
  readonly #server: () => Server | undefined;
  readonly #inFlight = new InFlightRequests();

  constructor(gateway: Gateway, sink: SessionSink, server: () => Server | undefined) {
    this.#gateway = gateway;
    this.#sink = sink;
    this.#server = server;
  }

  take(message: JSONRPCMessage, send: (message: JSONRPCMessage) => Promise<void>): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: unknown };
    if (m.method === 'notifications/cancelled') this.#inFlight.cancel(m.params);
    if (typeof m.method !== 'string' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return false;
    const claimed = envelopeVersion(m.params);
    if (claimed === undefined || !MODERN_VERSIONS.includes(claimed)) return false;
    if (modernRoute(this.#gateway, m.method) !== 'gateway') return false;
    const negotiated = this.#server()?.getNegotiatedProtocolVersion();
    if (negotiated !== undefined && isLegacyVersion(negotiated)) return false;
    const classified = classifyInboundRequest({ httpMethod: 'POST', body: message });
    if (classified.kind === 'legacy') return false;
    const id = m.id;
    if (classified.kind === 'reject') {
      const { code, message: text, data } = classified;
      void send({ jsonrpc: '2.0', id, error: { code, message: text, data } } as JSONRPCMessage).catch(
        () => {},
      );
      return true;
    }
    void this.#answer(id, m.method, m.params as Record<string, unknown> | undefined, send);
    return true;
  }

  closed(answered?: GatewayError): void {
    this.#inFlight.abortAll(answered);
  }

  async #answer(
    id: RequestId,
    method: string,
    params: Record<string, unknown> | undefined,
    send: (message: JSONRPCMessage) => Promise<void>,
  ): Promise<void> {
    const cancellation = this.#inFlight.begin(id);
    const notify = (m: string, p: Record<string, unknown>) =>
      send({ jsonrpc: '2.0', method: m, params: p } as JSONRPCMessage).catch(() => {});
    try {
      const response = await answerModern(
        this.#gateway,
        this.#sink,
        { id, method, ...(params === undefined ? {} : { params }) },
        { signal: cancellation, notify },
      );
      // A cancelled request gets no response at all (and a closed session has nowhere to send one).
      if (!cancellation.aborted) await send(response as JSONRPCMessage).catch(() => {});
    } finally {
      this.#inFlight.end(id, cancellation);
    }
  }
}
