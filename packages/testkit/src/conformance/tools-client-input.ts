import {
  type CallToolResult,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type InputResponseView,
  inputRequired,
  inputResponse,
  type McpServer,
} from '@modelcontextprotocol/server';
import { objectInput, stringProperty } from './schema.js';

/** The text of a sampling result (one block or the first text block of several). */
export function sampledText(result: CreateMessageResult | CreateMessageResultWithTools): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const text = blocks.find((block) => block.type === 'text');
  return text?.type === 'text' ? text.text : JSON.stringify(result.content);
}

/** Describes an elicitation answer the way the `*-elicitation*` scenarios expect to read it back. */
function describeElicitation(view: InputResponseView, prefix: string): CallToolResult {
  if (view.kind !== 'elicit') return text(`${prefix}: no elicitation answer`);
  return text(`${prefix}: action=${view.action}, content=${JSON.stringify(view.content ?? {})}`);
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** The SEP-1034 form: every primitive type with a default. */
const DEFAULTS_FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
} as const;

/** The SEP-1330 form: the five enum variants (untitled/titled single, legacy enumNames, untitled/titled multi). */
const ENUMS_FORM = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Pick one', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Pick one (titled)',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Pick one (legacy titles)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Pick several',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Pick several (titled)',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
} as const;

/**
 * Tools that need input from the client (sampling, elicitation). Each is written once as a multi-round
 * handler: it returns `inputRequired(...)` until the retried request carries the answer. A 2026-07-28
 * client fulfils that itself; on a 2025 session the SDK's legacy shim turns it into a real
 * `sampling/createMessage` / `elicitation/create` request to the client and re-enters the handler.
 */
export function registerClientInputTools(mcp: McpServer): void {
  mcp.registerTool(
    'test_sampling',
    {
      description: 'Asks the client to sample an LLM completion for the prompt',
      inputSchema: objectInput<{ prompt: string }>(
        { prompt: stringProperty('The prompt to send to the LLM') },
        ['prompt'],
      ),
    },
    ({ prompt }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'completion');
      if (answer.kind === 'sampling') return text(`LLM response: ${sampledText(answer.result)}`);
      return inputRequired({
        inputRequests: {
          completion: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
            maxTokens: 100,
          }),
        },
      });
    },
  );

  mcp.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user (elicitation) for a username and an email address',
      inputSchema: objectInput<{ message: string }>(
        { message: stringProperty('The message to show the user') },
        ['message'],
      ),
    },
    ({ message }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'user_info');
      if (answer.kind !== 'missing') return describeElicitation(answer, 'User response');
      return inputRequired({
        inputRequests: {
          user_info: inputRequired.elicit({
            message,
            requestedSchema: {
              type: 'object',
              properties: {
                username: { type: 'string', description: "User's response" },
                email: { type: 'string', description: "User's email address" },
              },
              required: ['username', 'email'],
            },
          }),
        },
      });
    },
  );

  mcp.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits a form whose fields all carry defaults (SEP-1034)', inputSchema: objectInput() },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'defaults');
      if (answer.kind !== 'missing') return describeElicitation(answer, 'Elicitation completed');
      return inputRequired({
        inputRequests: {
          defaults: inputRequired.elicit({
            message: 'Please review and update the form fields with defaults',
            requestedSchema: DEFAULTS_FORM as never,
          }),
        },
      });
    },
  );

  mcp.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits a form with every enum schema variant (SEP-1330)', inputSchema: objectInput() },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'enums');
      if (answer.kind !== 'missing') return describeElicitation(answer, 'Elicitation completed');
      return inputRequired({
        inputRequests: {
          enums: inputRequired.elicit({
            message: 'Please select options from the enum fields',
            requestedSchema: ENUMS_FORM as never,
          }),
        },
      });
    },
  );
}
