// How deep one JSON message nests, measured without unbounded recursion, so that a message nested 100,000
// levels deep is refused before anything that recurses (schema validation, the gateway's walkers) sees it.

/**
 * `limits.maxJsonDepth`: levels of arrays and objects one message may nest (the message itself is 1). 100
 * leaves a tool call's arguments (level 3) the 64 levels the approve plugin digests, and stays far below
 * where the SDK's schema validation overflows the stack (between 1,000 and 10,000).
 */
export const DEFAULT_MAX_JSON_DEPTH = 100;

/**
 * How deep an upstream's message may nest under `limits.maxJsonDepth`: twice as deep, since its results
 * wrap what clients sent (an echoed argument sits a few levels deeper in a result than in the request).
 */
export function upstreamJsonDepth(maxJsonDepth: number): number {
  return 2 * maxJsonDepth;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects more than `max` levels deep (a message object is level 1, a
 * batch array around it level 1 and the message 2). One pass over the text, without parsing it: brackets
 * inside strings do not count, and a string is skipped with `indexOf` (what makes large text payloads
 * cheap). Text that is not JSON is measured as far as it goes: the parser refuses it afterwards.
 *
 * @example
 * jsonTextTooDeep('{"a":[[1]]}', 2); // true: the inner array is level 3
 */
export function jsonTextTooDeep(text: string, max: number): boolean {
  // Nesting deeper than `max` takes more than `max` opening brackets.
  if (text.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return false;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote closing the string opened at `open`, or -1 when the string never closes. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    // Escaped when an odd number of backslashes stands right before it.
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * Whether a parsed JSON value nests arrays and objects more than `max` levels deep (the value itself is
 * level 1). It recurses, but never past level `max + 1`, where it stops: the stack it needs is bounded by
 * the limit (at most 2,001 frames of this small function), not by the value. For messages already parsed
 * (an upstream transport's): one step per array or object, nothing per byte of their strings (0.6 ms for
 * a MiB of small objects, a fraction of the parse; a bounded stack of its own was nine times slower).
 */
export function jsonValueTooDeep(value: unknown, max: number): boolean {
  return typeof value === 'object' && value !== null && deeper(value, 1, max);
}

function deeper(node: object, depth: number, max: number): boolean {
  if (depth > max) return true;
  if (Array.isArray(node)) {
    for (const item of node) {
      if (typeof item === 'object' && item !== null && deeper(item, depth + 1, max)) return true;
    }
    return false;
  }
  // Parsed JSON: own enumerable keys only (`__proto__` included, as an own key).
  for (const key in node) {
    const item = (node as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && deeper(item, depth + 1, max)) return true;
  }
  return false;
}
