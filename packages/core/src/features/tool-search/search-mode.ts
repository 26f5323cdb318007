import type { RequestContext } from '../../context.js';
import type { ToolSearchConfig } from '../../views/endpoint-view.js';
import { FULL_TOOL_LIST_KEY } from './caller-tools.js';
import { CALL_TOOL, SEARCH_TOOLS } from './gateway-tools.js';

/**
 * The tool search `ctx` is answered with: its endpoint's, when that searches and the request is not the
 * gateway's own full listing for a caller; undefined otherwise.
 */
export function searchModeOf(ctx: RequestContext): ToolSearchConfig | undefined {
  const search = ctx.view?.toolSearch;
  return search?.enabled && ctx.state.get(FULL_TOOL_LIST_KEY) !== true ? search : undefined;
}

/** A `tools/call` of the gateway's own `search_tools`, which the gateway answers itself. */
export function callsSearchTools(ctx: RequestContext): boolean {
  return ctx.method === 'tools/call' && ctx.params.name === SEARCH_TOOLS && searchModeOf(ctx) !== undefined;
}

/** A `tools/call` of the gateway's own `call_tool`, which stands for a call of the tool it names. */
export function callsCallTool(ctx: RequestContext): boolean {
  return ctx.method === 'tools/call' && ctx.params.name === CALL_TOOL && searchModeOf(ctx) !== undefined;
}
