/**
 * Argument values in a task phrasing, read as what they are: "share the plan with jane@acme.com",
 * "point www.example.com to 203.0.113.7", "show notes.txt", "move WEB-12 to done". The value's own
 * characters (`jane`, `acme`, `203`, `txt`) match nothing useful, its kind does (a user, a domain, an IP
 * address, a file, an issue). Applied to queries only: documents keep their text. A bare number stays a
 * word, split as in names (`tool_3` → `tool`, `3`): tool names hold numbers, and one no tool holds finds
 * nothing.
 */

const IMAGE_EXTENSIONS = 'png|jpe?g|gif|svg|webp|bmp|ico';
const FILE_EXTENSIONS = `txt|md|json|ya?ml|toml|csv|tsv|pdf|docx?|xlsx?|pptx?|html?|xml|log|zip|tar|gz|sql|${IMAGE_EXTENSIONS}`;

/** Value patterns, in order (an email holds a domain, a URL holds both), and what each becomes. */
const VALUES: readonly [RegExp, string][] = [
  [/\bhttps?:\/\/\S+/giu, ' url '],
  [/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/gu, ' user '],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?:\/\d{1,2})?\b/gu, ' ip address '],
  [new RegExp(`\\b([\\w-]+)\\.(?:${IMAGE_EXTENSIONS})\\b`, 'giu'), ' $1 image file '],
  [new RegExp(`\\b([\\w-]+)\\.(?:${FILE_EXTENSIONS})\\b`, 'giu'), ' $1 file '],
  [/\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|co|ai|info|biz|internal|local|example)\b/giu, ' domain '],
  [/\b[A-Z][A-Z0-9]{1,9}-\d+\b/gu, ' issue '],
  [/(?<![\w&])#[\p{L}\p{N}_-]+/gu, ' channel '],
  [/(?<![\w.])@[\p{L}\p{N}_-]+/gu, ' user '],
  [/\bv?\d+\.\d+(?:\.\d+)*\b/gu, ' version '],
  [
    /\b(?:us|eu|ap|sa|ca|me|af)-(?:north|south|east|west|central|northeast|southeast|northwest|southwest)-\d\b/giu,
    ' region ',
  ],
  [/\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b/giu, ' time '],
];

/** `query` with its argument values replaced by their kinds. */
export function typeValues(query: string): string {
  let typed = query;
  for (const [pattern, kind] of VALUES) typed = typed.replace(pattern, kind);
  return typed;
}
