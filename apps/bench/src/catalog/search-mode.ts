/**
 * What a client is handed in search mode (DESIGN §13): the gateway's `search_tools` and `call_tool`
 * plus the `alwaysList` tools, instead of the whole catalog. Plausible definitions written for the
 * measurement; the gateway's own are the integration's.
 */
import type { CatalogTool } from './model.js';

/** A tool as `tools/list` hands it to a client (no `server`: that is the gateway's bookkeeping). */
export type ListedTool = Omit<CatalogTool, 'server'>;

export function listed(tool: CatalogTool): ListedTool {
  const { server: _server, ...rest } = tool;
  return rest;
}

export function searchToolsDefinition(catalogSize: number): ListedTool {
  return {
    name: 'search_tools',
    title: 'Search tools',
    description:
      `Find the tools for a task among the ${catalogSize} tools this gateway can call; only the tools listed ` +
      'here are loaded up front. Describe the task in a few words, e.g. "open a bug about the login page". ' +
      'Returns the best matches, best first, each with its name, description and input schema; call one with call_tool.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 1000, description: 'The task, in a few words' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 20,
          default: 5,
          description: 'How many tools to return',
        },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

export const CALL_TOOL_DEFINITION: ListedTool = {
  name: 'call_tool',
  title: 'Call a tool',
  description:
    'Call a tool that search_tools found, by its name, with its arguments. Answers exactly what the tool answers.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The tool name search_tools returned' },
      arguments: { type: 'object', description: "Arguments matching the tool's input schema" },
    },
    required: ['name'],
  },
};

/** The `alwaysList` of the measurement: everyday tools of the real servers, present in every catalog size. */
export const ALWAYS_LIST = ['filesystem__read_text_file', 'filesystem__write_file', 'memory__search_nodes'];

/** The `tools/list` result in search mode for `catalog`. */
export function searchModeListing(catalog: readonly CatalogTool[]): { tools: ListedTool[] } {
  const always = catalog.filter((tool) => ALWAYS_LIST.includes(tool.name)).map(listed);
  return { tools: [searchToolsDefinition(catalog.length), CALL_TOOL_DEFINITION, ...always] };
}

/** The `tools/list` result in full mode: every tool of the catalog. */
export function fullListing(catalog: readonly CatalogTool[]): { tools: ListedTool[] } {
  return { tools: catalog.map(listed) };
}
