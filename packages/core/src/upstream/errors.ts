import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { GatewayError } from '../errors.js';

/** The message of an error and, when it adds something, its cause's: for logs and error details. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    // A wrapper that already quotes its cause (the SDK's "Version negotiation probe failed: …") says it once.
    return cause instanceof Error && !error.message.includes(cause.message)
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
}

/** Why an upstream is not connected, for an `upstream_unavailable` message. */
export function describeDown(error: unknown): string {
  return error === undefined ? 'not connected yet' : `last error: ${errorText(error)}`;
}

/**
 * What a failed upstream request means to the gateway: the upstream's own JSON-RPC error (kept, with the
 * upstream named), `cancelled`, `upstream_timeout`, or `upstream_unavailable` for a broken connection.
 */
export function mapUpstreamError(
  error: unknown,
  call: {
    upstream: string;
    method: string;
    signal: AbortSignal | undefined;
    timeoutMs: number;
    /** Called when the error means the connection itself is broken. */
    broken?: (error: unknown) => void;
  },
): GatewayError {
  if (error instanceof GatewayError) return error;
  if (call.signal?.aborted) return GatewayError.cancelled(call.method);
  if (error instanceof ProtocolError) return GatewayError.fromUnknown(error, call.upstream);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return GatewayError.upstreamTimeout(call.upstream, call.method, call.timeoutMs);
    }
    if (error.code === SdkErrorCode.CapabilityNotSupported) {
      return GatewayError.invalidParams(`Upstream '${call.upstream}' does not support ${call.method}.`, {
        upstream: call.upstream,
      });
    }
    call.broken?.(error);
    return GatewayError.upstreamUnavailable(call.upstream, error.message, error);
  }
  call.broken?.(error);
  return GatewayError.upstreamUnavailable(call.upstream, errorText(error), error);
}
