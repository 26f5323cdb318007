import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { ErrorCode, GatewayError } from '../errors.js';
import { DEFAULT_MAX_JSON_DEPTH, jsonValueTooDeep, upstreamJsonDepth } from '../json-depth.js';
import type { Logger } from '../logger.js';
import { isRecord, isRequestId } from '../payload.js';
import { preview, RateLimitedLog } from '../rate-limited-log.js';
import type { FaultReporting, InboundFaults } from '../transports/upstream/faults.js';
import { LayeredTransport, type TransportLayer } from './layered-transport.js';
import { checkNotification } from './notification-shapes.js';

type RequestId = string | number;

export interface InboundGuardOptions {
  /** The upstream's name, for errors. */
  upstream: string;
  log: Logger;
  /** `limits.maxResultBytes`, read when a message is measured (a reload may change it). */
  maxResultBytes: () => number;
  /**
   * Levels one upstream message may nest, read for each message: `upstreamJsonDepth(limits.maxJsonDepth)`;
   * default twice {@link DEFAULT_MAX_JSON_DEPTH}.
   */
  maxJsonDepth?: () => number;
}

/** What is remembered of each request sent, until it is answered. */
interface Sent {
  method: string;
  /** Sent on the 2026-07-28 wire (its results must carry `resultType`). */
  modern: boolean;
}

/** Requests remembered at most (one never answered nor cancelled must not be kept forever). */
const MAX_REMEMBERED = 65_536;
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * Stands between an upstream's transport and the SDK client (DESIGN §11): whatever the upstream sends, the
 * client sees well-formed JSON-RPC, and one bad message costs at most the request it answers.
 * - A response to no request of ours (unknown or already answered id) is dropped.
 * - A result that is no object, or an error that is no JSON-RPC error, becomes that request's
 *   `upstream_invalid_result` error instead of an exception that would drop the connection.
 * - A 2026-07-28 result without `resultType` (SDK v1 servers answer so) is taken as complete.
 * - A notification whose params the gateway could not use is dropped.
 * - A message the transport discarded for its size fails its request with `result_too_large`.
 * - A message nested deeper than twice `limits.maxJsonDepth` (which the SDK's validation would recurse
 *   through until the stack overflows) fails its request with `upstream_invalid_result`, or is dropped.
 * Each drop is logged, rate-limited.
 */
export function inboundGuard(transport: Transport, options: InboundGuardOptions): TransportLayer {
  const { upstream } = options;
  const sent = new Map<RequestId, Sent>();
  const noise = new RateLimitedLog(options.log);
  let toldResultType = false;
  // The answer for a request the transport could not deliver, handed to the client like any other.
  let receive: ((message: JSONRPCMessage) => void) | undefined;
  const fail = (id: RequestId, error: GatewayError): void => {
    receive?.({ jsonrpc: '2.0', id, error: error.toJSON() } as JSONRPCMessage);
  };
  const faults: InboundFaults = {
    oversized(id, bytes, hasMethod = false) {
      const limit = options.maxResultBytes();
      noise.warn('oversized', 'discarded an upstream message over limits.maxResultBytes', { bytes, limit });
      if (id === undefined) return;
      if (!hasMethod) {
        if (sent.has(id)) fail(id, GatewayError.resultTooLarge(upstream, bytes, limit));
        return;
      }
      // The upstream's own request: it gets its answer at once, never silence.
      const error = GatewayError.requestTooLarge(bytes, limit).toJSON();
      transport.send({ jsonrpc: '2.0', id, error } as JSONRPCMessage).catch(() => {});
    },
    unparsable(text, where) {
      noise.warn(`unparsable:${where}`, `dropped ${where} that is not JSON-RPC`, { text: preview(text) });
    },
    failed(id, detail, data) {
      if (sent.has(id)) fail(id, GatewayError.upstreamError(upstream, detail, data));
    },
    abandoned(detail) {
      noise.warn('abandoned', 'closed the upstream connection', { why: detail });
    },
    maxBytes: options.maxResultBytes,
  };
  (transport as Transport & FaultReporting).faults = faults;

  const send: TransportLayer['send'] = (message, sendOptions, next) => {
    const m = message as { method?: unknown; id?: unknown; params?: Record<string, unknown> };
    if (typeof m.method === 'string') {
      if (isRequestId(m.id)) remember(sent, m.id, { method: m.method, modern: isModern(m.method, m.params) });
      else if (m.method === 'notifications/cancelled' && isRequestId(m.params?.requestId))
        sent.delete(m.params.requestId);
    }
    return next(message, sendOptions);
  };

  const check = (message: unknown): JSONRPCMessage | undefined => {
    if (!isRecord(message)) {
      faults.unparsable(JSON.stringify(message) ?? String(message), 'a message');
      return undefined;
    }
    const maxDepth = options.maxJsonDepth?.() ?? upstreamJsonDepth(DEFAULT_MAX_JSON_DEPTH);
    if (jsonValueTooDeep(message, maxDepth)) return tooDeep(message, maxDepth);
    if (typeof message.method === 'string') {
      if (isRequestId(message.id)) return message as JSONRPCMessage; // the upstream's own request
      if ('id' in message) {
        // A request whose id is no string or number: nobody could answer it by its id. Never silence:
        // the upstream hears it is invalid (JSON-RPC 2.0: -32600 with id null).
        noise.warn('bad-request-id', 'refused an upstream request whose id is not a string or number', {
          method: message.method,
          id: preview(JSON.stringify(message.id) ?? 'none', 60),
        });
        const error = {
          code: ErrorCode.InvalidRequest,
          message: 'Invalid request: "id" must be a string or a number',
        };
        transport.send({ jsonrpc: '2.0', id: null, error } as unknown as JSONRPCMessage).catch(() => {});
        return undefined;
      }
      const problem = checkNotification(message.method, message.params);
      if (problem === undefined) return message as JSONRPCMessage;
      noise.warn(`notification:${message.method}`, 'dropped a malformed notification', {
        method: message.method,
        problem,
      });
      return undefined;
    }
    const id = message.id;
    const request = isRequestId(id) ? sent.get(id) : undefined;
    if (!isRequestId(id) || request === undefined) {
      noise.warn('stray', 'dropped a response to no request of ours (unknown or already answered id)', {
        id:
          typeof id === 'number'
            ? id
            : preview(typeof id === 'string' ? id : (JSON.stringify(id) ?? 'none'), 60),
      });
      return undefined;
    }
    sent.delete(id);
    if ('error' in message) {
      if (isErrorObject(message.error)) return message as JSONRPCMessage;
      return invalid(id, request, 'its error is not a JSON-RPC error object');
    }
    if (!('result' in message)) return invalid(id, request, 'the response has neither result nor error');
    const result = message.result;
    if (!isRecord(result)) return invalid(id, request, 'the result is not an object');
    if (request.modern && result.resultType === undefined) {
      if (!toldResultType) {
        toldResultType = true;
        options.log.info('answers 2026-07-28 requests without resultType; taking such results as complete', {
          method: request.method,
        });
      }
      return { ...message, result: { ...result, resultType: 'complete' } } as unknown as JSONRPCMessage;
    }
    return message as JSONRPCMessage;
  };
  /** A message nested deeper than the limit: only its own request fails (its own request, if it is one). */
  const tooDeep = (message: Record<string, unknown>, limit: number): JSONRPCMessage | undefined => {
    const detail = `it nests arrays and objects deeper than ${limit} levels (twice limits.maxJsonDepth)`;
    const id = message.id;
    if (typeof message.method === 'string') {
      noise.warn('too-deep', 'dropped an upstream message nested too deep', {
        method: message.method,
        limit,
      });
      if (!isRequestId(id)) return undefined;
      const error = new GatewayError(
        ErrorCode.InvalidRequest,
        `Switchyard discarded this request: ${detail}.`,
        {
          reason: 'too_deep',
          limit,
        },
      ).toJSON();
      transport.send({ jsonrpc: '2.0', id, error } as JSONRPCMessage).catch(() => {});
      return undefined;
    }
    const request = isRequestId(id) ? sent.get(id) : undefined;
    if (!isRequestId(id) || request === undefined) {
      noise.warn('too-deep', 'dropped an upstream message nested too deep', { limit });
      return undefined;
    }
    sent.delete(id);
    return invalid(id, request, detail);
  };
  const invalid = (id: RequestId, request: Sent, detail: string): JSONRPCMessage => {
    noise.warn(`invalid:${request.method}`, 'an upstream answer is not a valid result', {
      method: request.method,
      detail,
    });
    const error = GatewayError.upstreamInvalidResult(upstream, request.method, detail);
    return { jsonrpc: '2.0', id, error: error.toJSON() } as JSONRPCMessage;
  };

  return {
    send,
    receive: (message, extra, deliver) => {
      const checked = check(message);
      if (checked !== undefined) deliver(checked, extra);
    },
    attach: (inject) => {
      receive = inject;
    },
  };
}

/** `transport` behind the inbound guard alone (the connection layers more over it: `attempt.ts`). */
export function guardInbound(transport: Transport, options: InboundGuardOptions): Transport {
  return new LayeredTransport(transport, [inboundGuard(transport, options)]);
}

function remember(sent: Map<RequestId, Sent>, id: RequestId, request: Sent): void {
  sent.set(id, request);
  if (sent.size > MAX_REMEMBERED) sent.delete(sent.keys().next().value as RequestId);
}

/** Sent on the 2026-07-28 wire: the discovery probe, or a request carrying the protocol-version envelope. */
function isModern(method: string, params: Record<string, unknown> | undefined): boolean {
  if (method === 'server/discover') return true;
  const meta = params?._meta;
  return isRecord(meta) && typeof meta[PROTOCOL_VERSION_META_KEY] === 'string';
}

function isErrorObject(value: unknown): boolean {
  return isRecord(value) && Number.isInteger(value.code) && typeof value.message === 'string';
}
