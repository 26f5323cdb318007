/** How tool search weighs and matches: the fields a tool is indexed under, and their measured boosts. */

/** The fields of a tool's search document (documents.ts), each boosted on its own. */
export const SEARCH_FIELDS = [
  'name',
  'server',
  'title',
  'description',
  'params',
  'paramDescriptions',
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface ToolSearchOptions {
  /** BM25 score multiplier per field. */
  boost: Readonly<Record<SearchField, number>>;
  /** Query words also match index words they begin (`repo` → `repository`), at `prefixWeight`. */
  prefix: boolean;
  /** Weight of a prefix match relative to an exact one (0..1). */
  prefixWeight: number;
  /**
   * Query words of at least 5 characters also match index words within this fraction of their length
   * in edits (0.2: one typo in 5 characters); 0 turns typo tolerance off.
   */
  fuzzy: number;
  /** Weight of a fuzzy match relative to an exact one (0..1). */
  fuzzyWeight: number;
  /** Fold plural endings (terms.ts `stem`) in documents and queries alike. */
  stemming: boolean;
  /**
   * Weight of the words a query's words expand to (synonyms.ts: "spin up" → create) relative to the
   * query's own words (0..1); 0 turns expansion off.
   */
  synonymWeight: number;
  /**
   * Weight of the longest index word a query word begins with, when the query word itself is not in
   * the index (`downloadable` → `download`); 0: off.
   */
  stemWeight: number;
  /** BM25+ term saturation `k`, length normalisation `b` and lower bound `d` (MiniSearch's defaults: 1.2, 0.7, 0.5). */
  bm25: { k: number; b: number; d: number };
}

/**
 * The defaults, measured on the labelled task phrasings of the catalog bench
 * (`apps/bench/src/catalog/`): tuned on one half, checked on the other (README.md beside this file).
 */
export const DEFAULT_TOOL_SEARCH_OPTIONS: ToolSearchOptions = {
  boost: { name: 1, server: 2, title: 0.5, description: 1, params: 0.25, paramDescriptions: 1 },
  prefix: true,
  prefixWeight: 0.5,
  fuzzy: 0,
  fuzzyWeight: 0.2,
  stemming: false,
  synonymWeight: 0.5,
  stemWeight: 0.5,
  bm25: { k: 0.6, b: 0.7, d: 0.5 },
};

/**
 * The most terms one search looks up (the query's own, then expansions): a 1,000-character query stays
 * about as cheap as a short one.
 */
export const MAX_QUERY_TERMS = 32;
