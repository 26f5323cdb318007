/**
 * Which strings of a JSON value are scanned, and how a value is rebuilt with some of them replaced.
 *
 * Every string is visited, object keys included, in one fixed order (depth first, keys in
 * `Object.keys` order, each key just before its value), so the n-th string `collect` returns is the
 * n-th string `replace` meets. In answers (`blobs: 'skip'`) the `blob` of binary resource contents (an
 * object with a string `uri` beside its base64 `blob`: MCP's `BlobResourceContents`, as an item of a
 * read's `contents` or the `resource` of an embedded resource in a tool result or prompt message) is skipped: base64 that is not decoded (a credential in it is not
 * found, and replacing part of it would corrupt the binary). Any other `blob` key is a string like the
 * rest, and what a client sends is scanned whole.
 */

/** How much of a value is scanned at most; past either bound the whole value is refused, never passed unscanned. */
export interface WalkLimits {
  /** Deepest nesting of objects and arrays (the value itself is depth 0). */
  maxDepth: number;
  /** Most characters: every string's length, plus one per key, value and separator. */
  maxChars: number;
}

export const DEFAULT_LIMITS: WalkLimits = { maxDepth: 64, maxChars: 32 * 1024 * 1024 };

/** The strings of a value, in visiting order, and what separates each from the next when joined. */
export interface Strings {
  texts: string[];
  /** `': '` after a key whose value is a string (so `aws_secret_access_key: …` reads as one assignment), else `'\n'`. */
  separators: string[];
}

export type Collected = { ok: true; strings: Strings } | { ok: false; limit: 'depth' | 'size' };

class LimitReached extends Error {
  constructor(readonly limit: 'depth' | 'size') {
    super(limit);
  }
}

/** Whether the `blob` of binary resource contents is left out (answers) or scanned like any string. */
export type Blobs = 'skip' | 'scan';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * `record[key]` is the base64 of binary resource contents: `{ uri: string, blob: <base64>, … }` where
 * resource contents go (`place`: an item of a `contents` list, or the `resource` of an embedded resource
 * item); anywhere else (`structuredContent`, an argument) a `blob` is a string like the others.
 */
const isContentsBlob = (record: Record<string, unknown>, key: string, place: boolean) =>
  place &&
  key === 'blob' &&
  typeof record.uri === 'string' &&
  typeof record.blob === 'string' &&
  BASE64.test(record.blob);

/** Where resource contents go: the items of `contents`, the `resource` of a `{ type: "resource" }` item. */
const contentsIn = (record: Record<string, unknown>, key: string) =>
  key === 'contents' || (key === 'resource' && record.type === 'resource');

/** The strings of `value` to scan, or which bound it is over. */
export function collect(
  value: unknown,
  limits: WalkLimits = DEFAULT_LIMITS,
  blobs: Blobs = 'scan',
): Collected {
  const strings: Strings = { texts: [], separators: [] };
  let chars = 0;
  const spend = (n: number) => {
    chars += n;
    if (chars > limits.maxChars) throw new LimitReached('size');
  };
  const push = (text: string, separator: string) => {
    spend(text.length + 1);
    strings.texts.push(text);
    strings.separators.push(separator);
  };
  /** `place`: `node` stands where resource contents go (see `contentsIn`). */
  const visit = (node: unknown, depth: number, place = false): void => {
    if (typeof node === 'string') {
      push(node, '\n');
      return;
    }
    spend(1);
    if (typeof node !== 'object' || node === null) return;
    if (depth >= limits.maxDepth) throw new LimitReached('depth');
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1, place);
      return;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const member = record[key];
      push(key, typeof member === 'string' ? ': ' : '\n');
      if (blobs === 'scan' || !isContentsBlob(record, key, place))
        visit(member, depth + 1, contentsIn(record, key));
    }
  };
  try {
    visit(value, 0);
  } catch (error) {
    if (error instanceof LimitReached) return { ok: false, limit: error.limit };
    throw error;
  }
  return { ok: true, strings };
}

/**
 * `value` with the n-th string (as `collect` numbers them) replaced by `replacements.get(n)`. Objects
 * and arrays on the way to a replaced string are copied; the rest is shared, and `value` itself is
 * never changed. Call it only on a value `collect` accepted, with the same `blobs`.
 */
export function replace<T>(value: T, replacements: ReadonlyMap<number, string>, blobs: Blobs = 'scan'): T {
  let index = 0;
  const visit = (node: unknown, place = false): unknown => {
    if (typeof node === 'string') {
      const replacement = replacements.get(index++);
      return replacement ?? node;
    }
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) {
      let changed = false;
      const items = node.map((item) => {
        const next = visit(item, place);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? items : node;
    }
    const record = node as Record<string, unknown>;
    let changed = false;
    const entries = Object.keys(record).map((key): [string, unknown] => {
      const member = record[key];
      const newKey = replacements.get(index++) ?? key;
      const newMember =
        blobs === 'skip' && isContentsBlob(record, key, place)
          ? member
          : visit(member, contentsIn(record, key));
      if (newKey !== key || newMember !== member) changed = true;
      return [newKey, newMember];
    });
    // fromEntries defines own properties: a `__proto__` key stays a key.
    return changed ? Object.fromEntries(entries) : node;
  };
  return visit(value) as T;
}
