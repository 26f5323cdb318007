import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { LayeredTransport, type TransportLayer } from './layered-transport.js';
import { withoutEnvelope } from './pass-through.js';

/** Where a task handle travels through the SDK client (a key no result of the spec uses). */
const TASK_MARKER = 'switchyard/taskResult';

/**
 * Lets a 2026-07-28 `CreateTaskResult` (`resultType: "task"`, the Tasks extension, SEP-2663) through the
 * SDK client, which refuses any result type but `complete` and `input_required` (and would treat the
 * upstream as broken). Inbound results of that type are handed to the client as complete ones that carry
 * the original; {@link restoreTaskResult} gives it back. Everything else passes untouched.
 */
export const TASK_RESULTS_LAYER: TransportLayer = {
  receive: (message, extra, deliver) => deliver(disguised(message), extra),
};

/** `transport` with {@link TASK_RESULTS_LAYER} alone (an upstream connection layers more: `attempt.ts`). */
export function acceptTaskResults(transport: Transport): Transport {
  return new LayeredTransport(transport, [TASK_RESULTS_LAYER]);
}

function disguised(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: unknown }).result;
  if (
    typeof result !== 'object' ||
    result === null ||
    (result as Record<string, unknown>).resultType !== 'task'
  ) {
    return message;
  }
  // `content` satisfies the tools/call result schema the client checks a complete result against.
  return {
    ...message,
    result: { resultType: 'complete', content: [], [TASK_MARKER]: result },
  } as JSONRPCMessage;
}

/** The `CreateTaskResult` an upstream answered with, when `result` carries one; else `result` itself. */
export function restoreTaskResult(result: Record<string, unknown>): Record<string, unknown> {
  const original = result[TASK_MARKER];
  return typeof original === 'object' && original !== null
    ? withoutEnvelope(original as Record<string, unknown>)
    : result;
}
