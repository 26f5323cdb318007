/**
 * URI canonicalization for policy decisions (the access plugin's rules, a virtual server's resource globs):
 * every spelling of one resource must reach the rules as the same string, so that no equivalent spelling
 * of a denied URI gets through.
 *
 * The canonical form is deliberately aggressive. Over-normalizing can only make more spellings collapse
 * into one, and since allow and deny rules are both evaluated on that one form, a collapse never turns a
 * denied resource into an allowed one.
 */

/** A URI scheme (RFC 3986 §3.1); exposed URIs have `server+scheme`, which is itself a valid scheme. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** In glob patterns the scheme may also hold wildcards (`*+file:`). */
const PATTERN_SCHEME = /^([A-Za-z*][A-Za-z0-9+.*-]*):/;
const TRIPLET = /%[0-9A-Fa-f]{2}/;
const TRIPLET_RUNS = /(?:%[0-9A-Fa-f]{2})+/g;
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/;
/** C0 and C1 controls and DEL: no legitimate URI carries them, and servers disagree on what they mean. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
/** Leading and trailing C0 controls and spaces are stripped, as the WHATWG URL parser does. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const EDGE_SPACE = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
/** Characters that cannot appear in a decoded host (they would change where the authority ends). */
const BAD_HOST_CHAR = /[\s/?#@\\%[\]]/;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/;
/** Layers of percent-encoding decoded (`%252e` → `%2e` → `.`); a URI still encoded after that is refused. */
const MAX_DECODE_ROUNDS = 4;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', ws: '80', wss: '443' };

export interface NormalizeOptions {
  /**
   * The input is an RFC 6570 URI template (`uriTemplate` of a resource template): a `?` or `#` inside a
   * `{…}` expression does not end the path.
   */
  template?: boolean;
}

/**
 * The canonical form of a URI glob pattern (see `compileUriGlob`), or undefined when it has neither a
 * scheme nor a wildcard standing in for one. A pattern whose scheme is literal or holds `*` (`docs+file:…`,
 * `*+file:…`) is canonicalized like a URI. A pattern whose wildcard spans the scheme (`docs+**`,
 * `**secret**`) has no structure to parse: it is percent-decoded, `\` read as `/`, dot and empty path
 * segments removed, and the literal scheme characters before the first wildcard lowercased.
 */
export function normalizePattern(pattern: string): string | undefined {
  if (PATTERN_SCHEME.test(pattern)) return normalizeParts(splitUri(pattern, PATTERN_SCHEME, false))?.[0];
  if (!pattern.includes('*') || CONTROL.test(pattern)) return undefined;
  const decoded = percentDecode(pattern);
  if (decoded === undefined) return undefined;
  // Only a wildcard standing in for (part of) the scheme makes a scheme-less pattern: `docs+**`, `**x`.
  const star = decoded.indexOf('*');
  const head = decoded.slice(0, star);
  if (!/^[A-Za-z0-9+.-]*$/.test(head)) return undefined;
  const lowered = head.toLowerCase() + decoded.slice(star);
  const segments: string[] = [];
  for (const segment of lowered.replaceAll('\\', '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/').normalize('NFC');
}

interface RawParts {
  scheme: string;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
  /** Everything after the authority, undivided (path, query and fragment). */
  tail: string;
}

/**
 * The canonical form of a URI, or `undefined` when it cannot be canonicalized (no scheme, malformed
 * percent-encoding, invalid UTF-8, control characters, an impossible host): such a URI cannot be checked
 * and is denied. The canonical form:
 *
 * - strips leading/trailing spaces and controls; lowercases the scheme (`DOCS+File:` → `docs+file:`);
 * - percent-decodes everything decodable, repeatedly (`%252e` → `.`), so `%2e%2e`, `%2F` and `%73ecret`
 *   collapse into `..`, `/` and `secret`;
 * - drops userinfo, lowercases the host, strips a trailing dot, an empty port and the scheme's default port;
 * - in the path: treats `\` as `/`, removes dot segments (RFC 3986 §5.2.4), collapses repeated slashes
 *   and drops the trailing slash; an absolute path without authority gets an empty one (`file:/a` →
 *   `file:///a`);
 * - keeps the (decoded) query and drops the fragment;
 * - applies Unicode NFC.
 *
 * @example
 * normalizeUri('DOCS+File:///Public/%2E%2E/%73ecret//x/'); // 'docs+file:///secret/x'
 */
export function normalizeUri(uri: string, options: NormalizeOptions = {}): string | undefined {
  return uriReadings(uri, options)?.[0];
}

/**
 * Every canonical reading of a URI: the RFC 3986 reading ({@link normalizeUri}), and, when the URI has a
 * query or fragment, the reading of an upstream that treats the whole rest as a path (so
 * `/public/x?/../../secret` also reads as `/secret`). An access check must pass on every reading.
 * `undefined` when the URI cannot be canonicalized.
 */
export function uriReadings(uri: string, options: NormalizeOptions = {}): readonly string[] | undefined {
  return normalizeParts(splitUri(uri.replace(EDGE_SPACE, ''), SCHEME, options.template === true));
}

function normalizeParts(parts: RawParts | undefined): readonly string[] | undefined {
  if (!parts) return undefined;
  const authority = parts.authority === undefined ? undefined : normalizeAuthority(parts.authority, parts);
  if (authority === null) return undefined;
  const strict = render(parts.scheme, authority, parts.path, parts.query);
  if (strict === undefined) return undefined;
  if (parts.query === undefined && parts.fragment === undefined) return [strict];
  const naive = render(parts.scheme, authority, parts.tail, undefined);
  if (naive === undefined) return undefined;
  return naive === strict ? [strict] : [strict, naive];
}

function render(
  scheme: string,
  authority: string | undefined,
  rawPath: string,
  rawQuery: string | undefined,
): string | undefined {
  const path = normalizePath(rawPath);
  if (!path) return undefined;
  let text = `${scheme.toLowerCase()}:`;
  if (authority !== undefined || path.absolute) text += `//${authority ?? ''}`;
  text += path.text;
  if (rawQuery !== undefined) {
    const query = percentDecode(rawQuery);
    if (query === undefined) return undefined;
    text += `?${query}`;
  }
  return text.normalize('NFC');
}

/** Splits a URI into its raw components (RFC 3986 Appendix B), before any decoding. */
function splitUri(uri: string, schemePattern: RegExp, template: boolean): RawParts | undefined {
  if (CONTROL.test(uri)) return undefined;
  const scheme = schemePattern.exec(uri)?.[1];
  if (scheme === undefined) return undefined;
  let rest = uri.slice(scheme.length + 1);
  let authority: string | undefined;
  if (rest.startsWith('//')) {
    const end = firstIndexOf(rest, '/?#', 2, false);
    authority = rest.slice(2, end);
    rest = rest.slice(end);
  }
  const pathEnd = firstIndexOf(rest, '?#', 0, template);
  const path = rest.slice(0, pathEnd);
  let query: string | undefined;
  let fragment: string | undefined;
  if (rest[pathEnd] === '?') {
    const queryEnd = firstIndexOf(rest, '#', pathEnd + 1, template);
    query = rest.slice(pathEnd + 1, queryEnd);
    if (queryEnd < rest.length) fragment = rest.slice(queryEnd + 1);
  } else if (rest[pathEnd] === '#') {
    fragment = rest.slice(pathEnd + 1);
  }
  return { scheme, authority, path, query, fragment, tail: rest };
}

/** Index of the first of `chars` at or after `from` (skipping `{…}` expressions when asked), else the length. */
function firstIndexOf(text: string, chars: string, from: number, skipBraces: boolean): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (skipBraces && c === '{') depth++;
    else if (skipBraces && c === '}' && depth > 0) depth--;
    else if (depth === 0 && chars.includes(c)) return i;
  }
  return text.length;
}

/** The canonical authority (`host[:port]`, userinfo dropped), or null when it cannot be one. */
function normalizeAuthority(raw: string, parts: RawParts): string | null {
  const hostPort = raw.slice(raw.lastIndexOf('@') + 1);
  let rawHost = hostPort;
  let port: string | undefined;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return null;
    rawHost = hostPort.slice(0, close + 1);
    const after = hostPort.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return null;
    port = after === '' ? undefined : after.slice(1);
  } else {
    const colon = hostPort.lastIndexOf(':');
    if (colon >= 0) {
      rawHost = hostPort.slice(0, colon);
      port = hostPort.slice(colon + 1);
    }
  }
  const decoded = percentDecode(rawHost);
  if (decoded === undefined) return null;
  const host = decoded.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') ? !IPV6_LITERAL.test(host) : BAD_HOST_CHAR.test(host)) return null;
  const canonicalPort = normalizePort(port, parts.scheme);
  if (canonicalPort === null) return null;
  return canonicalPort === undefined ? host : `${host}:${canonicalPort}`;
}

/** Digits without leading zeros; undefined for an empty or default port; null when not a port. */
function normalizePort(port: string | undefined, scheme: string): string | undefined | null {
  if (port === undefined || port === '') return undefined;
  if (port.includes('*')) return port;
  if (!/^\d{1,10}$/.test(port)) return null;
  const digits = String(Number(port));
  const inner = scheme.toLowerCase().slice(scheme.lastIndexOf('+') + 1);
  return DEFAULT_PORTS[inner] === digits ? undefined : digits;
}

/**
 * Decoded path with `\` read as `/`, dot segments removed, empty segments (repeated and trailing
 * slashes) dropped; `absolute` when it starts at the root.
 */
function normalizePath(raw: string): { absolute: boolean; text: string } | undefined {
  const decoded = percentDecode(raw);
  if (decoded === undefined) return undefined;
  const unified = decoded.replaceAll('\\', '/');
  const absolute = unified.startsWith('/');
  const segments: string[] = [];
  for (const segment of unified.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const text = segments.length === 0 ? '' : (absolute ? '/' : '') + segments.join('/');
  return { absolute, text };
}

/**
 * Decodes percent-encoding layer by layer until none is left. The first layer must be well formed (a
 * `%` not followed by two hex digits is refused); decoded octets must be valid UTF-8 (overlong forms such
 * as `%C0%AE` are refused) and must not be control characters.
 */
export function percentDecode(raw: string): string | undefined {
  if (STRAY_PERCENT.test(raw)) return undefined;
  let text = raw;
  for (let round = 0; round < MAX_DECODE_ROUNDS && TRIPLET.test(text); round++) {
    try {
      text = text.replace(TRIPLET_RUNS, (run) => decodeURIComponent(run));
    } catch {
      return undefined;
    }
  }
  if (TRIPLET.test(text) || CONTROL.test(text)) return undefined;
  return text;
}
