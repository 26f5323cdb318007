import { GatewayError } from '../../errors.js';
import { isRecord } from '../../payload.js';

/** The gateway's own tools in search mode (DESIGN §13). */
export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';

/**
 * Whether `name` is one of the gateway's own tools in search mode: on an endpoint that searches, they
 * shadow an upstream's tools of those names (`"prefix": false`), which are neither found nor called there.
 */
export function isGatewayTool(name: string): boolean {
  return name === SEARCH_TOOLS || name === CALL_TOOL;
}

/** The longest query `search_tools` takes, in characters. */
export const MAX_QUERY_CHARS = 1000;
export const MAX_SEARCH_LIMIT = 20;

/** `search_tools` and `call_tool` as `tools/list` shows them; `total` is how many tools the caller may use. */
export function gatewayTools(total: number): Record<string, unknown>[] {
  return [
    {
      name: SEARCH_TOOLS,
      title: 'Search tools',
      description: `Finds the tools for a task among the ${total} tools this endpoint offers. Describe the task in a few words; the best matches come back with their input schemas. Call one with ${CALL_TOOL}.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            minLength: 1,
            maxLength: MAX_QUERY_CHARS,
            description: 'What you want to do, e.g. "open a bug about the login page".',
          },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_SEARCH_LIMIT,
            description: "How many tools to return (default: the endpoint's).",
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      title: 'Call a tool',
      description: `Calls a tool ${SEARCH_TOOLS} found, by its name, with the arguments its inputSchema describes.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: `The tool's name, as ${SEARCH_TOOLS} returned it.` },
          arguments: { type: 'object', description: "The tool's arguments.", additionalProperties: true },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
  ];
}

/** `search_tools` arguments, checked: the query and how many tools to return. */
export function searchArguments(args: unknown, fallbackLimit: number): { query: string; limit: number } {
  const given = isRecord(args) ? args : {};
  const { query, limit } = given;
  if (typeof query !== 'string' || query.trim().length === 0) {
    throw refused(
      'invalid_query',
      `${SEARCH_TOOLS} needs "query": a non-empty string saying what the tool should do.`,
    );
  }
  if (query.length > MAX_QUERY_CHARS) {
    throw refused(
      'invalid_query',
      `${SEARCH_TOOLS}: "query" is ${query.length} characters; at most ${MAX_QUERY_CHARS}.`,
    );
  }
  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_SEARCH_LIMIT)
  ) {
    throw refused(
      'invalid_limit',
      `${SEARCH_TOOLS}: "limit" must be an integer from 1 to ${MAX_SEARCH_LIMIT}.`,
    );
  }
  return { query, limit: (limit as number | undefined) ?? fallbackLimit };
}

/** `call_tool` arguments, checked: the name of the tool to call and its arguments. */
export function callArguments(args: unknown): {
  name: string;
  arguments: Record<string, unknown> | undefined;
} {
  const given = isRecord(args) ? args : {};
  const { name } = given;
  if (typeof name !== 'string' || name.length === 0) {
    throw refused('invalid_name', `${CALL_TOOL} needs "name": the name of a tool ${SEARCH_TOOLS} returned.`);
  }
  // Whatever the endpoint's upstreams are named: a gateway tool is called directly, never through call_tool.
  if (isGatewayTool(name)) {
    throw refused(
      'invalid_name',
      `${CALL_TOOL} calls the tools ${SEARCH_TOOLS} returns; "${name}" is the gateway's own: call it directly.`,
    );
  }
  const inner = given.arguments;
  if (inner !== undefined && !isRecord(inner)) {
    throw refused(
      'invalid_arguments',
      `${CALL_TOOL}: "arguments" must be an object (the tool's arguments by name).`,
    );
  }
  return { name, arguments: inner };
}

function refused(
  reason: 'invalid_query' | 'invalid_limit' | 'invalid_name' | 'invalid_arguments',
  message: string,
) {
  return GatewayError.invalidParams(message, { reason });
}
