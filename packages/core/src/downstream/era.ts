import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { ErrorCode } from '../errors.js';

/** Protocol revisions before 2026 use the legacy wire era. */
export function isLegacyVersion(version: string | undefined): boolean {
  return version === undefined || version < '2026-01-01';
}

/**
 * The legacy era adapter at the edge of a session: legacy revisions (2024-11-05 … 2025-11-25) specify
 * -32002 for a missing resource, the modern era -32602, and the SDK encodes -32602 in both. The gateway
 * raises one error (its `resource_not_found` reason) and this wrapper, around the session's transport,
 * writes the code the negotiated era expects. Everything else reaches the wrapped transport untouched.
 */
export function withEraErrorCodes(
  transport: Transport,
  negotiatedVersion: () => string | undefined,
): Transport {
  const send = (message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> =>
    transport.send(legacyNotFound(message, negotiatedVersion) ?? message, options);
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

function legacyNotFound(
  message: JSONRPCMessage,
  negotiatedVersion: () => string | undefined,
): JSONRPCMessage | undefined {
  const error = (message as { error?: { code?: number; data?: { reason?: unknown } } }).error;
  if (error?.code !== ErrorCode.InvalidParams || error.data?.reason !== 'resource_not_found')
    return undefined;
  if (!isLegacyVersion(negotiatedVersion())) return undefined;
  return { ...message, error: { ...error, code: ErrorCode.ResourceNotFoundLegacy } } as JSONRPCMessage;
}
