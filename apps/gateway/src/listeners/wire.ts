import type { JSONRPCMessage } from '@modelcontextprotocol/server';

// The few JSON-RPC and HTTP shapes the legacy session transport looks at.

export type RequestId = string | number;

export function isRequest(
  message: JSONRPCMessage,
): message is JSONRPCMessage & { id: RequestId; method: string } {
  return 'method' in message && 'id' in message && (message as { id?: unknown }).id !== undefined;
}

export function isResponse(message: JSONRPCMessage): boolean {
  return !('method' in message) && ('result' in message || 'error' in message);
}

export function cancelledRequest(message: JSONRPCMessage): RequestId | undefined {
  const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
  if (method !== 'notifications/cancelled') return undefined;
  const id = params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
