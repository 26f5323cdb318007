import { normalizePattern } from '@switchyard/core';

/**
 * One step of a compiled glob:
 * - `char`: that exact character;
 * - `star`: any run of characters except `/` (`*`);
 * - `globstar`: any run of characters (`**`);
 * - `segments`: an optional `/**` at a segment boundary: nothing, or `/` followed by a `globstar`.
 */
type Token = { kind: 'char'; char: string } | { kind: 'star' } | { kind: 'globstar' } | { kind: 'segments' };

/** A compiled URI glob. */
export interface UriGlob {
  /** The pattern as written in the options. */
  readonly source: string;
  /** The pattern in canonical form (what is actually matched). */
  readonly pattern: string;
  /** Whether a canonical URI (see `normalizeUri`) matches. */
  matches(canonicalUri: string): boolean;
}

/**
 * Compiles a URI glob. The pattern is canonicalized like the URIs it is matched against (scheme and host
 * case, percent-encoding, dot segments…), then read with exactly two wildcards:
 *
 * - `*` matches any characters except `/` (within one path segment);
 * - `**` matches any characters, `/` included, anywhere (`docs+**` is every URI of server `docs`);
 *   a `/**` that ends the pattern or is followed by `/` may also match nothing, so `a/**` matches `a`
 *   as well as `a/b/c`, and `a/**` + `/b` matches `a/b`.
 *
 * Every other character is literal: `?`, `+`, `:`, `(`, `)`, `[`, `]`, `{`, `}`, `!`, `@`, `\`. Matching
 * is case-sensitive and runs in O(pattern × URI) time (no backtracking).
 *
 * @example
 * compileUriGlob('docs+file:///public/**').matches('docs+file:///public/a/b.md'); // true
 * @throws Error when the pattern cannot be canonicalized (e.g. malformed percent-encoding, no scheme).
 */
export function compileUriGlob(source: string): UriGlob {
  const pattern = canonicalPattern(source);
  const tokens = tokenize(pattern);
  return { source, pattern, matches: (uri) => run(tokens, uri) };
}

function canonicalPattern(source: string): string {
  const canonical = normalizePattern(source);
  if (canonical !== undefined) return canonical;
  throw new Error(
    `cannot read ${JSON.stringify(source)} as a URI pattern: it needs a scheme or a leading wildcard (e.g. "docs+file:///public/**", "docs+**", "**"), well-formed percent-encoding and no control characters`,
  );
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '/' && pattern.startsWith('/**', i) && (i + 3 === pattern.length || pattern[i + 3] === '/')) {
      tokens.push({ kind: 'segments' }, { kind: 'globstar' });
      i += 3;
    } else if (c === '*') {
      let end = i;
      while (pattern[end] === '*') end++;
      tokens.push(end - i >= 2 ? { kind: 'globstar' } : { kind: 'star' });
      i = end;
    } else {
      tokens.push({ kind: 'char', char: c });
      i++;
    }
  }
  return tokens;
}

/** Simulates the pattern as a non-deterministic automaton: one pass over the input, no backtracking. */
function run(tokens: readonly Token[], input: string): boolean {
  const size = tokens.length + 1;
  let active = new Uint8Array(size);
  let next = new Uint8Array(size);
  active[0] = 1;
  close(tokens, active);
  for (const c of input) {
    next.fill(0);
    let any = false;
    for (let i = 0; i < tokens.length; i++) {
      if (!active[i]) continue;
      const token = tokens[i]!;
      if (token.kind === 'char') {
        if (token.char === c) next[i + 1] = 1;
      } else if (token.kind === 'star') {
        if (c !== '/') next[i] = 1;
      } else if (token.kind === 'globstar') {
        next[i] = 1;
      } else if (c === '/') {
        next[i + 1] = 1;
      }
      any ||= next[i] === 1 || next[i + 1] === 1;
    }
    if (!any) return false;
    close(tokens, next);
    [active, next] = [next, active];
  }
  return active[tokens.length] === 1;
}

/** Adds the states reachable without consuming input: past a wildcard, or past a whole optional `/**`. */
function close(tokens: readonly Token[], states: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) {
    if (!states[i]) continue;
    const kind = tokens[i]!.kind;
    if (kind === 'star' || kind === 'globstar') states[i + 1] = 1;
    else if (kind === 'segments') states[i + 2] = 1;
  }
}
