import type { DownstreamClient } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';
import type { Deadline } from '../upstream/deadline.js';
import { missingCapability } from './capabilities.js';
import type { InputRequest } from './suspended-call.js';

/** The `inputRequests` of an input-required result, by the keys the upstream chose. */
export type InputRequests = Record<string, InputRequest>;

/**
 * Asks the downstream client of a request something an upstream needs (a legacy client: a request on
 * the request's own stream). A client that did not declare the capability is not asked: the upstream
 * gets a clear error instead. The request's deadline is paused while the client answers.
 */
export async function askClient(
  client: DownstreamClient | undefined,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
  deadline?: Deadline,
): Promise<Record<string, unknown>> {
  if (!client?.request) {
    throw new GatewayError(
      ErrorCode.MethodNotFound,
      `Switchyard cannot relay ${method}: the client request it belongs to cannot be asked anything.`,
    );
  }
  const missing = missingCapability(method, params, client.capabilities);
  if (missing !== undefined) {
    throw new GatewayError(
      ErrorCode.MethodNotFound,
      `The client did not declare the '${missing}' capability, so Switchyard cannot ask it for ${method}.`,
    );
  }
  const release = deadline?.hold();
  try {
    return await client.request(method, params, { signal });
  } finally {
    release?.();
  }
}

/** The answer when an upstream keeps asking for input past the limit (a tool call reports a tool error). */
export function roundsExceeded(method: string, rounds: number): Record<string, unknown> {
  const message = `${method} needed more than ${rounds} rounds of client input; giving up.`;
  if (method === 'tools/call') return { content: [{ type: 'text', text: message }], isError: true };
  throw new GatewayError(ErrorCode.InternalError, message);
}
