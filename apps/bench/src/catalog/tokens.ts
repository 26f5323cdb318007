/**
 * What a client pays in context for the tool list: tokens of the JSON of the `tools/list` result (as a
 * client puts tool definitions in its context), full catalog vs search mode, counted with a real BPE
 * tokenizer (gpt-tokenizer, o200k_base: GPT-4o and later).
 */
import { countTokens } from 'gpt-tokenizer';
import type { CatalogTool } from './model.js';
import { fullListing, listed, searchModeListing } from './search-mode.js';

export interface TokenRow {
  tools: number;
  full: number;
  search: number;
  /** 1 − search / full, as a percentage. */
  savedPercent: number;
}

export const tokensOf = (value: unknown): number => countTokens(JSON.stringify(value));

export function tokenRow(catalog: readonly CatalogTool[]): TokenRow {
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
