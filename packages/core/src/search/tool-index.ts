/**
 * Tool search over a catalog (DESIGN §13): an immutable BM25 index, built once per catalog, that ranks
 * tools for a task phrasing. MiniSearch does the indexing and BM25+ scoring (README.md says why that
 * library); this file decides what is indexed, how words are made, and what a caller may see.
 */
import MiniSearch from 'minisearch';
import { type SearchableTool, type SearchDocument, searchDocument } from './documents.js';
import {
  DEFAULT_TOOL_SEARCH_OPTIONS,
  MAX_QUERY_TERMS,
  SEARCH_FIELDS,
  type SearchField,
  type ToolSearchOptions,
} from './options.js';
import { expansions } from './synonyms.js';
import { indexTerm } from './terms.js';
import { typeValues } from './values.js';
import { words } from './words.js';

/** One ranked tool: its exposed name and its score (higher is better; comparable within one search only). */
export interface ToolSearchHit {
  name: string;
  score: number;
}

export interface ToolSearchQuery {
  /** At most this many hits (cut down to an integer; below 1, or not a number, finds nothing). */
  limit: number;
  /**
   * Whether the caller may see the tool of this exposed name. Applied before `limit`: a caller gets
   * up to `limit` tools it may see, never one it may not.
   */
  visible?: (name: string) => boolean;
}

/** Fuzzy matching only for query words this long: shorter ones would match too many other words. */
const MIN_FUZZY_LENGTH = 5;
/** The shortest root a query word is cut back to (`stemWeight`). */
const MIN_STEM_LENGTH = 4;
/** Prefix matching only for query words this long: `a`… or `ge`… would match half the index. */
const MIN_PREFIX_LENGTH = 3;

type Indexed = SearchDocument & { id: number };

/**
 * A ranked, read-only index of one catalog. Holds nothing per request or per session: build a new
 * one when the catalog changes (3,000 tools take about 0.2 s, 30,000 about 2.5 s: README.md).
 *
 * @example
 * const index = new ToolSearchIndex(tools);
 * index.search('open a bug about the login page', { limit: 5, visible: (name) => allowed.has(name) });
 * // [{ name: 'tracker__create_issue', score: 18.2 }, …]
 */
export class ToolSearchIndex {
  readonly #names: string[] = [];
  /** Ids by exposed name: a query that is a tool's exposed name finds that tool first. */
  readonly #ids = new Map<string, number>();
  /** Every term of the index: a query word not among them may meet a shorter one it starts with. */
  readonly #vocabulary = new Set<string>();
  readonly #engine: MiniSearch<Indexed>;
  readonly #options: ToolSearchOptions;

  /** Indexes `tools`; a name seen twice keeps its first tool. */
  constructor(tools: Iterable<SearchableTool>, options: Partial<ToolSearchOptions> = {}) {
    this.#options = { ...DEFAULT_TOOL_SEARCH_OPTIONS, ...options };
    const { stemming } = this.#options;
    this.#engine = new MiniSearch<Indexed>({
      fields: [...SEARCH_FIELDS],
      idField: 'id',
      // Documents hold words already split (documents.ts); here they only become terms.
      tokenize: (text) => text.split(' '),
      processTerm: (word) => {
        const term = word === '' ? undefined : indexTerm(word, stemming);
        if (term !== undefined) this.#vocabulary.add(term);
        return term;
      },
    });
    for (const tool of tools) {
      if (this.#ids.has(tool.name)) continue;
      this.#ids.set(tool.name, this.#names.length);
      this.#engine.add({ id: this.#names.length, ...searchDocument(tool) });
      this.#names.push(tool.name);
    }
  }

  /** How many tools the index holds. */
  get size(): number {
    return this.#names.length;
  }

  /**
   * The query's index terms and their weights, at most MAX_QUERY_TERMS: its own words at 1 (argument
   * values read as their kind, split, stop words dropped), the index words its unknown words start with
   * at `stemWeight`, then the words they expand to (synonyms.ts) at `synonymWeight`.
   */
  terms(query: string): Map<string, number> {
    const { stemming, stemWeight, synonymWeight } = this.#options;
    const terms = new Map<string, number>();
    const add = (term: string | undefined, weight: number): void => {
      if (term !== undefined && !terms.has(term) && terms.size < MAX_QUERY_TERMS) terms.set(term, weight);
    };
    const queryWords = words(typeValues(query));
    for (const word of queryWords) add(indexTerm(word, stemming), 1);
    if (stemWeight > 0) for (const term of [...terms.keys()]) add(this.#indexWordStarting(term), stemWeight);
    if (synonymWeight > 0)
      for (const word of expansions(queryWords)) add(indexTerm(word, stemming), synonymWeight);
    return terms;
  }

  /**
   * The longest index word that `term` begins with and that is at least MIN_STEM_LENGTH long, if
   * `term` itself is not one: a derived or inflected query word meets its root (`downloadable` →
   * `download`, `ownership` → `owner`, `crashing` → `crash`).
   */
  #indexWordStarting(term: string): string | undefined {
    if (this.#vocabulary.has(term)) return undefined;
    for (let end = term.length - 1; end >= MIN_STEM_LENGTH; end--) {
      const head = term.slice(0, end);
      if (this.#vocabulary.has(head)) return head;
    }
    return undefined;
  }

  /**
   * The tools best matching `query`, best first, at most `limit`, only those `visible` admits. A query
   * that is a tool's exposed name (`github__create_issue`) finds that tool first, scored as the best.
   */
  search(query: string, { limit, visible }: ToolSearchQuery): ToolSearchHit[] {
    const terms = this.terms(query);
    const max = Math.floor(limit);
    if (!(max >= 1) || this.#names.length === 0) return [];
    const names = this.#names;
    const named = this.#ids.get(query.trim());
    const exact =
      named !== undefined && (visible === undefined || visible(names[named]!)) ? named : undefined;
    if (terms.size === 0) return exact === undefined ? [] : [{ name: names[exact]!, score: 0 }];
    const { boost, prefix, prefixWeight, fuzzy, fuzzyWeight, bm25 } = this.#options;
    const results = this.#engine.search(
      { queries: [...terms.keys()], combineWith: 'OR' },
      {
        // MiniSearch reads a boost of 0 as 1: a field weighted 0 is left out of the search instead.
        fields: SEARCH_FIELDS.filter((field) => boost[field] > 0),
        boost: boost as Record<SearchField, number>,
        boostTerm: (term) => terms.get(term) ?? 1,
        prefix: prefix ? (term) => term.length >= MIN_PREFIX_LENGTH : false,
        fuzzy: fuzzy > 0 ? (term) => (term.length >= MIN_FUZZY_LENGTH ? fuzzy : false) : false,
        weights: { prefix: prefixWeight, fuzzy: fuzzyWeight },
        bm25,
        // The query terms are made above; MiniSearch must not split or process them again.
        tokenize: (text) => [text],
        processTerm: (term) => term,
        ...(visible === undefined ? {} : { filter: (result) => visible(names[result.id as number]!) }),
      },
    );
    const hits: ToolSearchHit[] = [];
    if (exact !== undefined) hits.push({ name: names[exact]!, score: results[0]?.score ?? 0 });
    for (const result of results) {
      if (hits.length === max) break;
      if (result.id !== exact) hits.push({ name: names[result.id as number]!, score: result.score });
    }
    return hits;
  }
}
