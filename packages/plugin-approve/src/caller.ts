import { AskFailed, InputRequired, type RequestContext } from '@switchyard/core';
import { shown } from './json.js';

/** The input key of the approval question (2026-07-28 `inputRequests`). */
export const APPROVAL_INPUT_KEY = 'switchyard.approval';

export type CallerDecision =
  | { decision: 'approved' }
  | { decision: 'denied' }
  | { decision: 'timeout' }
  | { decision: 'required'; why: string };

/**
 * Asks the caller to approve its own call through elicitation (server, tool and arguments shown), in
 * either era (`ctx.ask`). `accept` approves; `decline` and `cancel` deny.
 */
export async function askCaller(
  ctx: RequestContext,
  call: { tool: string; server: string; arguments: unknown },
  timeoutMs: number,
): Promise<CallerDecision> {
  if (!ctx.ask) return { decision: 'required', why: 'the gateway cannot ask this client anything' };
  let answer: Record<string, unknown>;
  try {
    answer = await ctx.ask({
      key: APPROVAL_INPUT_KEY,
      method: 'elicitation/create',
      params: {
        message: `Approve this call?\nTool: ${call.tool}\nServer: ${call.server}\nArguments:\n${shown(call.arguments)}`,
        requestedSchema: { type: 'object', properties: {} },
      },
      timeoutMs,
    });
  } catch (error) {
    if (error instanceof InputRequired) throw error;
    if (error instanceof AskFailed) {
      return error.reason === 'timeout'
        ? { decision: 'timeout' }
        : { decision: 'required', why: 'the client does not support elicitation' };
    }
    if (ctx.signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return { decision: 'required', why: `the client failed the elicitation (${message.slice(0, 200)})` };
  }
  return answer.action === 'accept' ? { decision: 'approved' } : { decision: 'denied' };
}
