import {
  type CallToolResult,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { invalidArgs, type MisbehaveSession, type ToolArgs, text } from './tool-session.js';

/** How long `ask` waits for the client's answer. */
export const ASK_TIMEOUT_MS = 15_000;

/** Minimal valid params of the server-to-client requests `ask` knows; any other method gets `{}`. */
const MINIMAL_PARAMS: Record<string, Record<string, unknown> | undefined> = {
  'sampling/createMessage': {
    messages: [{ role: 'user', content: { type: 'text', text: 'Say something.' } }],
    maxTokens: 50,
  },
  'elicitation/create': {
    message: 'What is your answer?',
    requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  },
  'roots/list': undefined,
  ping: undefined,
};

/** Accepts whatever the client answers: `ask` reports it, it does not judge it. */
const ANY_RESULT: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'switchyard-testkit', validate: (value) => ({ value }) },
};

function paramsFor(method: string, args: ToolArgs): Record<string, unknown> | undefined {
  const given = args.params;
  if (given !== undefined) {
    if (typeof given !== 'object' || given === null || Array.isArray(given))
      throw invalidArgs('ask', 'params must be an object');
    return given as Record<string, unknown>;
  }
  return method in MINIMAL_PARAMS ? MINIMAL_PARAMS[method] : {};
}

/**
 * The `server-requests` tool: sends `method` to the client (2025 era only: the modern era has no
 * server-to-client requests), related to the call or, with `unrelated`, to nothing, and reports what came
 * back: `answered: <json>`, `error <code>: <message>` or `no answer within 15 s`.
 */
export async function ask(
  args: ToolArgs,
  ctx: ServerContext,
  session: MisbehaveSession,
): Promise<CallToolResult> {
  if (session.era === 'modern') return text('ask needs the 2025 era');
  const { method, unrelated = false } = args;
  if (typeof method !== 'string' || method === '')
    throw invalidArgs('ask', 'method must be a non-empty string');
  if (typeof unrelated !== 'boolean') throw invalidArgs('ask', 'unrelated must be a boolean');
  const params = paramsFor(method, args);
  const request = params === undefined ? { method } : { method, params };
  const options = { timeout: ASK_TIMEOUT_MS, signal: ctx.mcpReq.signal };
  try {
    let result: unknown;
    if (unrelated) {
      await session.beforeUnsolicited();
      result = await session.server.request(request, ANY_RESULT, options);
    } else {
      result = await ctx.mcpReq.send(request, ANY_RESULT, options);
    }
    return text(`answered: ${JSON.stringify(result)}`);
  } catch (error) {
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && !ctx.mcpReq.signal.aborted)
      return text('no answer within 15 s');
    if (error instanceof ProtocolError) return text(`error ${error.code}: ${error.message}`);
    throw error;
  }
}
