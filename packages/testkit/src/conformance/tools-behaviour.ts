import type { McpServer } from '@modelcontextprotocol/server';
import { delay } from '../server.js';
import { jsonInput, objectInput } from './schema.js';
import type { FixtureState } from './state.js';

/** The JSON Schema 2020-12 document `json-schema-2020-12` expects listed verbatim ($defs, $anchor, if/then/else…). */
const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

/**
 * Tools that behave over time or touch the transport: log and progress notifications during a call,
 * closing the call's SSE stream mid-flight (resumability), a JSON Schema 2020-12 input, and the
 * diagnostic hooks the stateless (2026-07-28) scenario drives.
 */
export function registerBehaviourTools(mcp: McpServer, state: FixtureState): void {
  mcp.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three info log messages while it runs', inputSchema: objectInput() },
    async (_args, ctx) => {
      await ctx.mcpReq.log('info', 'Tool execution started');
      await delay(50, ctx.mcpReq.signal);
      await ctx.mcpReq.log('info', 'Tool processing data');
      await delay(50, ctx.mcpReq.signal);
      await ctx.mcpReq.log('info', 'Tool execution completed');
      return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
    },
  );

  mcp.registerTool(
    'test_tool_with_progress',
    {
      description: 'Reports progress 0, 50 and 100 of 100 when given a progress token',
      inputSchema: objectInput(),
    },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await delay(50, ctx.mcpReq.signal);
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `Completed step ${progress}/100` },
          });
        }
      }
      return { content: [{ type: 'text', text: 'Tool with progress executed successfully' }] };
    },
  );

  mcp.registerTool(
    'test_reconnection',
    {
      description: 'Closes its own SSE response stream mid-call, then answers (resume with Last-Event-ID)',
      inputSchema: objectInput(),
    },
    async (_args, ctx) => {
      // Only a resumable (event-store backed) HTTP session offers closeSSE; elsewhere this is a plain call.
      ctx.http?.closeSSE?.();
      await delay(100, ctx.mcpReq.signal);
      return { content: [{ type: 'text', text: 'Reconnection test completed' }] };
    },
  );

  mcp.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: jsonInput(JSON_SCHEMA_2020_12_INPUT as never),
    },
    (args) => ({ content: [{ type: 'text', text: `received ${JSON.stringify(args)}` }] }),
  );

  mcp.registerTool(
    'test_custom_header',
    {
      description: 'Takes a region that 2026-07-28 HTTP clients also send as the Mcp-Param-Region header',
      // x-mcp-header (SEP-2243): the SDK's HTTP entry checks the header against the body before dispatch.
      inputSchema: jsonInput<{ region: string }>({
        type: 'object',
        properties: { region: { type: 'string', description: 'A region name', 'x-mcp-header': 'Region' } },
        required: ['region'],
      } as never),
    },
    ({ region }) => ({ content: [{ type: 'text', text: `region: ${region}` }] }),
  );

  mcp.registerTool(
    'test_logging_tool',
    {
      description: 'Logs one info message (sent only when the request asks for logs)',
      inputSchema: objectInput(),
    },
    async (_args, ctx) => {
      await ctx.mcpReq.log('info', 'test_logging_tool ran');
      return { content: [{ type: 'text', text: 'logging tool done' }] };
    },
  );

  mcp.registerTool(
    'test_trigger_tool_change',
    { description: 'Announces a tool list change to every listener', inputSchema: objectInput() },
    () => {
      state.toolsChanged();
      return { content: [{ type: 'text', text: 'tools/list_changed announced' }] };
    },
  );

  mcp.registerTool(
    'test_trigger_prompt_change',
    { description: 'Announces a prompt list change to every listener', inputSchema: objectInput() },
    () => {
      state.promptsChanged();
      return { content: [{ type: 'text', text: 'prompts/list_changed announced' }] };
    },
  );
}
