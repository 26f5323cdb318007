/**
 * What a client is handed and what it pays in context for it: in search mode (DESIGN §13) the gateway's
 * `search_tools` and `call_tool` (the gateway's own definitions) plus the `alwaysList` tools, instead of
 * the whole catalog; and the tokens of the JSON of the `tools/list` result (as a client puts tool
 * definitions in its context), full catalog vs search mode, counted with a real BPE tokenizer
 * (gpt-tokenizer, o200k_base: GPT-4o and later).
 */
import { gatewayTools } from '@switchyard/core';
import { countTokens } from 'gpt-tokenizer';
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

export const tokensOf = (value: unknown): number => countTokens(JSON.stringify(value));

/** Tokens of the full and the search-mode tools/list, and 1 − search / full as a percentage. */
export function tokenRow(catalog: readonly CatalogTool[]) {
  const full = tokensOf(fullListing(catalog));
  const search = tokensOf(searchModeListing(catalog));
  return { tools: catalog.length, full, search, savedPercent: (1 - search / full) * 100 };
}

/**
 * Tokens of a `search_tools` answer carrying these tools, in `structuredContent` and as text as DESIGN
 * §13 has it (what each search then costs in context).
 */
export function searchAnswerTokens(tools: readonly CatalogTool[]): number {
  const found = tools.map(listed);
  return tokensOf({
    content: [{ type: 'text', text: JSON.stringify(found) }],
    structuredContent: { tools: found },
  });
}
