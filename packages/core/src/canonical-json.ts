import { createHash } from 'node:crypto';

/**
 * RFC 8785 (JCS) canonical JSON of a JSON value: object keys sorted by UTF-16 code units, no
 * whitespace, numbers and strings serialized as ECMAScript does (`JSON.stringify`, which is what
 * RFC 8785 specifies for them). Object members whose value is `undefined` are left out, as in JSON.
 * Throws a TypeError for what JSON cannot hold (non-finite numbers, bigints, functions).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot canonicalize the number ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`cannot canonicalize a ${typeof value}`);
}

/** `sha256:` and the hex SHA-256 of a value's canonical JSON: equal for equal JSON, whatever the key order. */
export function jsonDigest(value: unknown): `sha256:${string}` {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}
