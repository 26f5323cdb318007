/** Deeper than this, a value is not a JSON-RPC result (and may be cyclic): its size is not reported. */
const MAX_DEPTH = 64;

/**
 * The UTF-8 size of `value` serialized as JSON, computed without serializing it: the byte length of
 * every string and number plus the JSON punctuation. Escape sequences inside strings are not counted
 * (a `\n` in a text counts 1 byte, not 2), so texts with many quotes, backslashes or control
 * characters read slightly small; base64 blobs and plain text are exact. Serializing a 1 MiB read
 * only to measure it would cost about 15 times as much. Undefined when `value` is not plain JSON
 * (a bigint, or nesting deeper than 64 levels).
 *
 * @example
 * encodedSize({ contents: [{ uri: 'a', text: 'hi' }] }) // 38, as JSON.stringify gives
 */
export function encodedSize(value: unknown): number | undefined {
  const size = sizeOf(value, 0);
  return Number.isNaN(size) ? undefined : size;
}

/** Size of one JSON value; NaN when it cannot be measured. */
function sizeOf(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return Buffer.byteLength(value, 'utf8') + 2;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4; // NaN and ±Infinity become null
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      if (value === null) return 4;
      if (depth >= MAX_DEPTH) return Number.NaN;
      return Array.isArray(value)
        ? arraySize(value, depth)
        : objectSize(value as Record<string, unknown>, depth);
    default:
      return Number.NaN; // bigint, symbol, function, undefined at the top
  }
}

function arraySize(items: readonly unknown[], depth: number): number {
  let size = 2 + Math.max(0, items.length - 1);
  for (const item of items) {
    size += item === undefined || typeof item === 'function' ? 4 : sizeOf(item, depth + 1);
  }
  return size;
}

function objectSize(record: Record<string, unknown>, depth: number): number {
  const toJSON = (record as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return sizeOf(toJSON.call(record), depth + 1);
  let size = 2;
  let members = 0;
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    size += Buffer.byteLength(key, 'utf8') + 3 + sizeOf(member, depth + 1); // "key":
    members += 1;
  }
  return size + Math.max(0, members - 1);
}
