/**
 * Splitting names and prose into lower-case words, the one tokenizer of tool search (queries and
 * documents alike), so `create_issue`, `createIssue`, `create-issue` and "create an issue" meet.
 */

/** A run of letters or of digits; everything else (`_`, `-`, `.`, spaces, punctuation) separates words. */
const RUNS = /\p{L}+|\p{N}+/gu;

/** A lower-case letter (or digit) followed by an upper-case one: `getFile` → `get|File`. */
const CAMEL_LOWER_UPPER = /(\p{Ll})(\p{Lu})/gu;

/** The end of an acronym before a capitalised word: `HTTPServer` → `HTTP|Server`. */
const CAMEL_ACRONYM = /(\p{Lu})(\p{Lu}\p{Ll})/gu;

/** English contractions (`what's`, `I'm`, `isn't`): their endings are dropped, not split off as words. */
const CONTRACTIONS = /(?:n['’]t|['’](?:s|m|re|ll|ve|d))(?![\p{L}\p{N}])/giu;

/** Combining marks, removed after NFKD so `café` and `cafe` are one word. */
const MARKS = /\p{M}+/gu;

/**
 * The words of `text`: snake_case, kebab-case, camelCase (with acronyms), dotted and spaced text all
 * split; letters and digits split apart (`ec2` → `ec`, `2`); accents folded; lower-cased.
 *
 * @example
 * words('github__createPullRequest'); // ['github', 'create', 'pull', 'request']
 * words('list_ec2_instances');        // ['list', 'ec', '2', 'instances']
 */
export function words(text: string): string[] {
  const split = text
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(CONTRACTIONS, '')
    .replace(CAMEL_LOWER_UPPER, '$1 $2')
    .replace(CAMEL_ACRONYM, '$1 $2');
  const found = split.match(RUNS);
  if (found === null) return [];
  return found.map((word) => word.toLowerCase());
}
