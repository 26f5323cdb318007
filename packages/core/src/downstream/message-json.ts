import { ErrorCode, GatewayError } from '../errors.js';
import { errorResponse } from './jsonrpc.js';

/**
 * A JSON-RPC message (or a batch of them) as the JSON text a transport writes. A response whose result or
 * error JSON cannot write — a cycle, a BigInt, nesting deeper than `JSON.stringify` can walk, a `toJSON`
 * that throws: what a plugin's hook may answer — is written as a -32603 `internal` error for the same id
 * instead, so the request is still answered (DESIGN §9: never a hang or a 5xx; the writer threw, and the
 * client heard nothing or an HTTP 500). The message is serialized once: nothing is checked on the normal
 * path. A message that is no response (a notification, a request) still throws.
 */
export function messageJson(message: unknown): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if (Array.isArray(message)) return `[${message.map(messageJson).join(',')}]`;
    if (!isResponse(message)) throw error;
    return JSON.stringify(errorResponse(message.id, unwritable(error)));
  }
}

/** What the client hears instead of an answer JSON cannot write. */
export function unwritable(error: unknown): GatewayError {
  const why = error instanceof Error ? error.message : String(error);
  return new GatewayError(
    ErrorCode.InternalError,
    `Internal gateway error: the answer to this request cannot be written as JSON (${why}). A plugin's request or upstreamCall hook most likely answered a value with a cycle, a BigInt or nesting too deep: report it to the plugin's maintainers.`,
    { reason: 'internal' },
  );
}

function isResponse(message: unknown): message is { id: unknown } {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  return m.method === undefined && 'id' in m && ('result' in m || 'error' in m);
}
