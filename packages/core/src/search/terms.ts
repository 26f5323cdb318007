/**
 * What a word becomes in the index: function words dropped, plurals folded when asked. One pipeline for
 * documents and queries, so "issues" finds `create_issue` and "the" finds nothing (and costs nothing).
 */

/**
 * English function words, and the filler of task phrasings ("please", "want"), which match nearly
 * every description and would only add noise and latency to an OR query.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  'a about all an and any are as at be been but by can could do does for from had has have i if in into is it its just me my need of on or our please should so some that the their them then there these this those to us was we were what which will with would want you your how when where why who whom also very too than yet still here now only once let lets'.split(
    ' ',
  ),
);

/** Plurals the endings below would get wrong. */
const IRREGULAR = new Map<string, string>([
  ['aliases', 'alias'],
  ['caches', 'cache'],
  ['canvases', 'canvas'],
  ['statuses', 'status'],
  ['indices', 'index'],
]);

/**
 * A light English stemmer: plural and third-person `-s` endings only (`issues` → `issue`,
 * `entities` → `entity`, `boxes` → `box`, `branches` → `branch`, `releases` → `release`), leaving
 * `status`, `class`, `analysis` alone. Porter stemming ranked worse on the tuning half (README.md).
 */
export function stem(word: string): string {
  const n = word.length;
  if (n <= 3 || !word.endsWith('s')) return word;
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (word.endsWith('ies') && n > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (/(?:x|ch|sh|zz)es$/.test(word)) return word.slice(0, -2);
  if (/(?:ss|us|is)$/.test(word)) return word;
  return word.slice(0, -1);
}

/** A single letter carries no meaning of its own (`A/B` → `a`, `b`); a single digit may (`v2`). */
const LONE_LETTER = /^\p{L}$/u;

/** The index term of one word, or undefined when the word is not worth indexing. */
export function indexTerm(word: string, stemming: boolean): string | undefined {
  if (STOP_WORDS.has(word) || LONE_LETTER.test(word)) return undefined;
  return stemming ? stem(word) : word;
}
