import type { RequestContext } from '@switchyard/core';

/**
 * A modern (2026-07-28) multi round-trip result: the upstream needs the client's input (elicitation,
 * sampling, roots) before it can answer, and hands back a `requestState` for the client's retry. It
 * belongs to the one request that got it: never cached, never handed to another reader.
 */
export function needsInput(result: Record<string, unknown>): boolean {
  return result.resultType === 'input_required';
}

/**
 * A retry of a multi round-trip request: it carries the client's answers (`inputResponses`) or the
 * `requestState` of an earlier input-required result, so its result depends on that exchange and must
 * be read from the upstream, alone.
 */
export function isRetry(ctx: Pick<RequestContext, 'client' | 'params'>): boolean {
  const client = ctx.client;
  if (client?.requestState !== undefined || client?.inputResponses !== undefined) return true;
  return ctx.params.requestState !== undefined || ctx.params.inputResponses !== undefined;
}
