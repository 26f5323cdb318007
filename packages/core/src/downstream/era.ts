import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import type { DownstreamClient } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';

type RequestId = string | number;

/** Protocol revisions before 2026 use the legacy wire era. */
export function isLegacyVersion(version: string | undefined): boolean {
  return version === undefined || version < '2026-01-01';
}

/**
 * The era adapter for errors: legacy revisions (2024-11-05 … 2025-11-25) specify -32002 for a missing
 * resource, the modern era -32602. The gateway raises one error (reason `resource_not_found`) and the
 * request chain gives it the code of the caller's era as soon as it becomes an outcome, so every plugin
 * sees the error the client receives. Anything else, and a request of no known era, is returned as is.
 */
export function errorForEra(error: GatewayError, client: DownstreamClient | undefined): GatewayError {
  if (client === undefined || error.reason !== 'resource_not_found') return error;
  const code = client.era === 'legacy' ? ErrorCode.ResourceNotFoundLegacy : ErrorCode.InvalidParams;
  if (error.code === code) return error;
  return new GatewayError(code, error.message, error.data, { cause: error.cause });
}

/**
 * Keeps the wire faithful to the gateway's answer: the SDK's codec writes every -32002 it is thrown as
 * -32602 (in both eras), so the session notes the requests it answers with -32002 and this wrapper,
 * around the session's transport, puts that code back into their error responses. It decides nothing
 * itself; everything else reaches the wrapped transport untouched.
 */
export class WireErrorCodes {
  /** The codes to restore, by request id: only while some request is answered with -32002 (idle: none). */
  #codes: Map<RequestId, number> | undefined;

  /**
   * Notes that request `id` is answered with `error`, just before it is thrown to the SDK. A cancelled
   * request gets no response at all: nothing is noted for it.
   */
  note(id: RequestId, error: GatewayError, signal: AbortSignal): void {
    if (error.code !== ErrorCode.ResourceNotFoundLegacy || signal.aborted) return;
    this.#codes ??= new Map();
    this.#codes.set(id, error.code);
  }

  wrap(transport: Transport): Transport {
    const send = (message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> =>
      transport.send(this.#restored(message), options);
    return new Proxy(transport, {
      get(target, key) {
        if (key === 'send') return send;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
      set(target, key, value) {
        return Reflect.set(target, key, value, target);
      },
    });
  }

  #restored(message: JSONRPCMessage): JSONRPCMessage {
    const { id, error } = message as { id?: unknown; error?: { code?: unknown } };
    if (error === undefined || (typeof id !== 'string' && typeof id !== 'number')) return message;
    const code = this.#codes?.get(id);
    if (code === undefined) return message;
    this.#codes?.delete(id);
    if (this.#codes?.size === 0) this.#codes = undefined;
    return { ...message, error: { ...error, code } } as JSONRPCMessage;
  }
}
