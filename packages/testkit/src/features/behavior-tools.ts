import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { delay } from '../delay.js';
import type { SessionHost } from '../session-host.js';
import type { ToolBehavior } from '../tool-catalog.js';

type Args = Record<string, unknown>;
type ToolOutcome = CallToolResult | InputRequiredResult;

const DEFAULT_SLOW_STEPS = 4;
const SAMPLE_MAX_TOKENS = 50;

/** The form `elicit` asks for: one string property `answer`. */
const ANSWER_SCHEMA = {
  type: 'object' as const,
  properties: { answer: { type: 'string' as const, description: 'Your answer' } },
  required: ['answer'],
};

function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function stringArg(args: Args, key: string, fallback: string): string {
  const value = args[key];
  return typeof value === 'string' ? value : fallback;
}

function invalidArgs(tool: string, problem: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid arguments for tool '${tool}': ${problem}`,
  );
}

/** Serves one call of tool `name` (already known to exist) by its behaviour. */
export async function callTool(
  behavior: ToolBehavior,
  name: string,
  args: Args,
  ctx: ServerContext,
  host: SessionHost,
): Promise<ToolOutcome> {
  switch (behavior) {
    case 'echo': {
      await delay(host.options.latencyMs, ctx.mcpReq.signal);
      const structuredContent = { tool: name, arguments: args };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    }
    case 'slow':
      return slow(args, ctx);
    case 'fail':
      return {
        isError: true,
        content: [{ type: 'text', text: stringArg(args, 'message', "tool 'fail' failed") }],
      };
    case 'throw':
      throw invalidArgs('throw', 'it refuses every call');
    case 'link':
      return link(host);
    case 'elicit':
      return elicit(args, ctx);
    case 'sample':
      return sample(args, ctx);
    case 'roots':
      return roots(ctx);
    case 'log':
      await ctx.mcpReq.notify({
        method: 'notifications/message',
        params: {
          level: 'info',
          logger: host.options.name,
          data: stringArg(args, 'message', 'log tool called'),
        },
      });
      return textResult('logged');
  }
}

/**
 * Waits `ms`; with a progress token, in `steps` equal slices, sending progress `k` of `steps` as slice `k`
 * starts. The last notification thus precedes the result by `ms / steps`: a client that runs notification
 * handlers a microtask late (the v2 SDK does) drops progress that arrives in the same read as the result.
 */
async function slow(args: Args, ctx: ServerContext): Promise<CallToolResult> {
  const { ms, steps = DEFAULT_SLOW_STEPS } = args;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw invalidArgs('slow', 'ms must be a non-negative number');
  if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1)
    throw invalidArgs('slow', 'steps must be a positive integer');
  const { signal } = ctx.mcpReq;
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) {
    await delay(ms, signal);
  } else {
    for (let progress = 1; progress <= steps; progress++) {
      signal.throwIfAborted();
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress, total: steps },
      });
      await delay(ms / steps, signal);
    }
  }
  return textResult(`slept ${ms} ms`);
}

/** A `resource_link` to resource 0 and the same resource embedded; a tool error when there is none. */
function link(host: SessionHost): CallToolResult {
  const first = host.catalog.first();
  if (first === undefined)
    return { isError: true, content: [{ type: 'text', text: 'no resource to link to' }] };
  return {
    content: [
      { type: 'resource_link', ...first.resource },
      { type: 'resource', resource: first.contents },
    ],
  };
}

// elicit, sample and roots are written once for both eras: they return an input-required result until the
// (retried or, on 2025-era sessions, shim re-entered) call carries the response under their key.

function elicit(args: Args, ctx: ServerContext): ToolOutcome {
  const view = inputResponse(ctx.mcpReq.inputResponses, 'elicit');
  if (view.kind === 'elicit') {
    const result =
      view.content === undefined ? { action: view.action } : { action: view.action, content: view.content };
    return textResult(JSON.stringify(result));
  }
  const message = stringArg(args, 'message', 'What is your answer?');
  return inputRequired({
    inputRequests: {
      elicit: inputRequired.elicit({ mode: 'form', message, requestedSchema: ANSWER_SCHEMA }),
    },
  });
}

function sample(args: Args, ctx: ServerContext): ToolOutcome {
  const view = inputResponse(ctx.mcpReq.inputResponses, 'sample');
  if (view.kind === 'sampling') {
    const { content } = view.result;
    const blocks = Array.isArray(content) ? content : [content];
    return textResult(blocks.map((b) => (b.type === 'text' ? b.text : JSON.stringify(b))).join(''));
  }
  const prompt = stringArg(args, 'prompt', 'Say something.');
  return inputRequired({
    inputRequests: {
      sample: inputRequired.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: SAMPLE_MAX_TOKENS,
      }),
    },
  });
}

function roots(ctx: ServerContext): ToolOutcome {
  const view = inputResponse(ctx.mcpReq.inputResponses, 'roots');
  if (view.kind === 'roots') return textResult(JSON.stringify(view.roots));
  return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
}
