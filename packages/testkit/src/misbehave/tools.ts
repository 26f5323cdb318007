import {
  type CallToolResult,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  type Server,
  type ServerContext,
  type ServerEvent,
  type Tool,
} from '@modelcontextprotocol/server';
import type { ListKind } from '../server.js';
import type { SessionHost } from '../session-host.js';
import { ask } from './ask.js';
import { HTTP_429_TOOL, HTTP_500_TOOL } from './http-shim.js';
import { MISBEHAVE_MODES, type MisbehaveMode } from './modes.js';
import { REWRITE_MARKER, type ResultRewrite } from './response-rewriter.js';
import { invalidArgs, type MisbehaveSession, type ToolArgs, text } from './tool-session.js';

/** A tool only a misbehave mode adds, and what serves its calls. */
export interface MisbehaveTool {
  tool: Tool;
  call(args: ToolArgs, ctx: ServerContext, session: MisbehaveSession): Promise<CallToolResult>;
}

/** Default `huge` size: 40 MiB (over the gateway's default 32 MiB `maxResultBytes`). */
export const HUGE_DEFAULT_BYTES = 40 * 1024 * 1024;
const HUGE_MAX_BYTES = 256 * 1024 * 1024;
export const BURST_DEFAULT_COUNT = 2000;
const BURST_MAX_COUNT = 1_000_000;
const LIST_KINDS: readonly ListKind[] = ['tools', 'resources', 'prompts'];
const LIST_EVENTS: Record<ListKind, ServerEvent> = {
  tools: { kind: 'tools_list_changed' },
  resources: { kind: 'resources_list_changed' },
  prompts: { kind: 'prompts_list_changed' },
};

function integerArg(args: ToolArgs, tool: string, key: string, fallback: number, max: number): number {
  const value = args[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
    throw invalidArgs(tool, `${key} must be an integer from 0 to ${max}`);
  return value;
}

/** A valid result the wire layer replaces (see {@link REWRITE_MARKER}). */
function marked(rewrite: ResultRewrite): CallToolResult {
  return { ...text(`replaced on the wire (${rewrite})`), _meta: { [REWRITE_MARKER]: rewrite } };
}

type SchemaProperties = NonNullable<Tool['inputSchema']['properties']>;

function definition(
  name: string,
  description: string,
  properties: SchemaProperties = {},
  required?: string[],
): Tool {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties, ...(required === undefined ? {} : { required }) },
  };
}

const INVALID_RESULT: MisbehaveTool = {
  tool: definition('invalid_result', 'Answers {"content":"not-an-array"}, which violates CallToolResult'),
  call: async () => marked('invalid-result'),
};

const NON_OBJECT_RESULT: MisbehaveTool = {
  tool: definition(
    'non_object_result',
    'Answers a JSON-RPC response whose result is the string "not an object"',
  ),
  call: async () => marked('non-object-result'),
};

const HUGE: MisbehaveTool = {
  tool: definition('huge', 'Answers one text item of `bytes` characters (default 40 MiB)', {
    bytes: { type: 'integer', minimum: 0, maximum: HUGE_MAX_BYTES },
  }),
  call: async (args) =>
    text('x'.repeat(integerArg(args, 'huge', 'bytes', HUGE_DEFAULT_BYTES, HUGE_MAX_BYTES))),
};

const BURST: MisbehaveTool = {
  tool: definition('burst', 'Sends `count` list_changed notifications of `kind` back to back', {
    count: { type: 'integer', minimum: 0, maximum: BURST_MAX_COUNT },
    kind: { type: 'string', enum: [...LIST_KINDS] },
  }),
  call: async (args, ctx, session) => {
    const count = integerArg(args, 'burst', 'count', BURST_DEFAULT_COUNT, BURST_MAX_COUNT);
    const kind = args.kind ?? 'tools';
    if (!LIST_KINDS.includes(kind as ListKind))
      throw invalidArgs('burst', `kind must be one of ${LIST_KINDS.join(', ')}`);
    const list = kind as ListKind;
    if (session.server.getCapabilities()[list] === undefined)
      return { ...text(`burst: this server does not advertise ${list}`), isError: true };
    for (let i = 0; i < count; i++) {
      if (session.era === 'legacy') {
        // On the call's own stream (HTTP) so none is dropped for want of a standalone GET stream.
        await ctx.mcpReq.notify({ method: `notifications/${list}/list_changed` });
      } else {
        session.publish(LIST_EVENTS[list]);
        await session.notifyListChanged(list);
      }
    }
    return text(`burst sent ${count}`);
  },
};

const ASK: MisbehaveTool = {
  tool: definition(
    'ask',
    'Sends the server-to-client request `method` (2025 era), related to the call unless `unrelated`, and reports the answer',
    {
      method: {
        type: 'string',
        description: 'e.g. sampling/createMessage, elicitation/create, roots/list, x/custom',
      },
      unrelated: {
        type: 'boolean',
        description: 'Send it unrelated to any request (stdio: out of the blue)',
      },
      params: { type: 'object', description: 'Params to send instead of the built-in minimal ones' },
    },
    ['method'],
  ),
  call: ask,
};

const HTTP_500: MisbehaveTool = {
  tool: definition(HTTP_500_TOOL, 'Over HTTP, its call is answered with HTTP 500 and an HTML page'),
  call: async () => text(`${HTTP_500_TOOL} fails only over HTTP`),
};

const HTTP_429: MisbehaveTool = {
  tool: definition(HTTP_429_TOOL, 'Over HTTP, its call is answered with HTTP 429 and Retry-After: 7'),
  call: async () => text(`${HTTP_429_TOOL} fails only over HTTP`),
};

const TOOLS_OF: Partial<Record<MisbehaveMode, readonly MisbehaveTool[]>> = {
  'invalid-result': [INVALID_RESULT, NON_OBJECT_RESULT],
  'huge-result': [HUGE],
  'list-changed-burst': [BURST],
  'server-requests': [ASK],
  'http-500': [HTTP_500, HTTP_429],
};

/** The tools `modes` add, in the order of {@link MISBEHAVE_MODES} (listed after the catalog's tools). */
export function misbehaveTools(modes: ReadonlySet<MisbehaveMode>): MisbehaveTool[] {
  return MISBEHAVE_MODES.filter((mode) => modes.has(mode)).flatMap((mode) => TOOLS_OF[mode] ?? []);
}

/** A request handler as the SDK stores it (what `Protocol._getRequestHandler` returns). */
export type StoredRequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * Serves `tools/call` for `tools` and hands every other call to `previous` (the catalog's handler), so the
 * normal tools stay exactly as they were.
 */
export function registerToolCalls(
  server: Server,
  host: SessionHost,
  tools: readonly MisbehaveTool[],
  previous: StoredRequestHandler | undefined,
  session: MisbehaveSession,
): void {
  const byName = new Map(tools.map((t) => [t.tool.name, t]));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const tool = byName.get(name);
    if (tool === undefined) {
      if (previous === undefined)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return (await previous({ jsonrpc: '2.0', id: ctx.mcpReq.id, ...request }, ctx)) as CallToolResult;
    }
    host.stats.activeToolCalls += 1;
    try {
      return await tool.call(request.params.arguments ?? {}, ctx, session);
    } finally {
      host.stats.activeToolCalls -= 1;
    }
  });
}
