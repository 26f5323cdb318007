/**
 * What a client is handed in search mode (DESIGN §13): the gateway's `search_tools` and `call_tool`
 * (the gateway's own definitions) plus the `alwaysList` tools, instead of the whole catalog.
 */
import { gatewayTools } from '@switchyard/core';
import type { CatalogTool } from './model.js';

/** A tool as `tools/list` hands it to a client (no `server`: that is the gateway's bookkeeping). */
export type ListedTool = Omit<CatalogTool, 'server'>;

export function listed(tool: CatalogTool): ListedTool {
  const { server: _server, ...rest } = tool;
  return rest;
}

/** The gateway's own `search_tools` and `call_tool`, exactly as its `tools/list` shows them. */
export function gatewayToolDefinitions(catalogSize: number): ListedTool[] {
  return gatewayTools(catalogSize) as unknown as ListedTool[];
}

/** The `alwaysList` of the measurement: everyday tools of the real servers, present in every catalog size. */
export const ALWAYS_LIST = ['filesystem__read_text_file', 'filesystem__write_file', 'memory__search_nodes'];

/** The `tools/list` result in search mode for `catalog`. */
export function searchModeListing(catalog: readonly CatalogTool[]): { tools: ListedTool[] } {
  const always = catalog.filter((tool) => ALWAYS_LIST.includes(tool.name)).map(listed);
  return { tools: [...always, ...gatewayToolDefinitions(catalog.length)] };
}

/** The `tools/list` result in full mode: every tool of the catalog. */
export function fullListing(catalog: readonly CatalogTool[]): { tools: ListedTool[] } {
  return { tools: catalog.map(listed) };
}
