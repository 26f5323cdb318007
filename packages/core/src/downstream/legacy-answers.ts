import type { JSONRPCMessage, MessageExtraInfo, Server } from '@modelcontextprotocol/server';
import type { SessionSink } from '../context.js';
import { GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import type { Outcome } from '../middleware.js';
import { isLegacyVersion, resultForEra } from './era.js';
import { InFlightRequests } from './in-flight.js';
import { errorResponse } from './jsonrpc.js';
import { legacyClient } from './legacy-client.js';
import { type InboundMessageInfo, requestContext } from './request-context.js';
import type { InboundTaker } from './routed-transport.js';
import type { LogLevelHolder } from './server-adapter.js';

type RequestId = string | number;

interface InboundRequest {
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * What stays with the SDK on a legacy session besides the handshake, ping and `logging/setLevel`:
 * `tools/list`, whose result the SDK's legacy codec rewrites (output schemas a 2025 client cannot read).
 */
const SDK_ENCODED = new Set(['tools/list']);

/**
 * The gateway answers a legacy session's requests itself, straight from the transport: one context built
 * from the request, one `gateway.handle`, one response written — its error exactly the `GatewayError`
 * the request chain settled on (already in the legacy era's codes), formatted once by `errorResponse`.
 * The session's SDK `Server` keeps the handshake, ping, `logging/setLevel`, responses to its own
 * requests, and every request of a session that has not negotiated a legacy revision (modern requests
 * carry their era in each envelope and go through the SDK's modern codec).
 */
export class LegacyAnswers implements InboundTaker {
  readonly #gateway: Gateway;
  readonly #sink: SessionSink;
  readonly #logging: LogLevelHolder;
  readonly #server: () => Server | undefined;
  readonly #inFlight = new InFlightRequests();

  constructor(
    gateway: Gateway,
    sink: SessionSink,
    logging: LogLevelHolder,
    server: () => Server | undefined,
  ) {
    this.#gateway = gateway;
    this.#sink = sink;
    this.#logging = logging;
    this.#server = server;
  }

  take(
    message: JSONRPCMessage,
    send: (message: JSONRPCMessage) => Promise<void>,
    extra?: MessageExtraInfo,
  ): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: unknown };
    if (m.method === 'notifications/cancelled') this.#inFlight.cancel(m.params);
    if (typeof m.method !== 'string' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return false;
    if (!this.#answers(m.method) || (m.params !== undefined && !isPlainObject(m.params))) return false;
    const server = this.#server();
    const version = server?.getNegotiatedProtocolVersion();
    if (!server || version === undefined || !isLegacyVersion(version)) return false;
    void this.#answer(server, message as unknown as InboundRequest, send, extra as InboundMessageInfo);
    return true;
  }

  closed(answered?: GatewayError): void {
    this.#inFlight.abortAll(answered);
  }

  #answers(method: string): boolean {
    return !SDK_ENCODED.has(method) && this.#gateway.answers(method);
  }

  async #answer(
    server: Server,
    request: InboundRequest,
    send: (m: JSONRPCMessage) => Promise<void>,
    info: InboundMessageInfo | undefined,
  ) {
    const { id, method } = request;
    const cancellation = this.#inFlight.begin(id);
    const notifyRelated = (m: string, p: Record<string, unknown>) =>
      server.notification({ method: m, params: p } as never, { relatedRequestId: id });
    const context = requestContext({
      method,
      params: request.params ?? {},
      session: this.#sink,
      signal: cancellation,
      notifyRelated,
      resumableStream: info?.resumableStream,
      gatewayRequest: info?.gatewayRequest,
      client: legacyClient(server, id, this.#logging.level),
    });
    let outcome: Outcome;
    try {
      outcome = await this.#gateway.handle(context);
    } catch (error) {
      outcome = { ok: false, error: GatewayError.fromUnknown(error) };
    } finally {
      this.#inFlight.end(id, cancellation);
    }
    // A cancelled request gets no response at all (and a closed session has nowhere to send one).
    if (cancellation.aborted) return;
    const response = outcome.ok
      ? { jsonrpc: '2.0' as const, id, result: resultForEra(outcome.result, 'legacy') }
      : errorResponse(id, outcome.error);
    await send(response as JSONRPCMessage).catch((error: unknown) =>
      server.onerror?.(new Error(`Failed to send response: ${String(error)}`)),
    );
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
