import type { StandardSchemaV1 } from '@modelcontextprotocol/client';

/** Reading untyped JSON-RPC payloads (upstream results, request params) without trusting their shape. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `record` without `_meta[key]` (a key that belongs to one hop, e.g. an upstream's own task or stream id);
 * `_meta` goes when nothing else is left in it. The same object when it has no such key.
 */
export function withoutMetaKey(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const meta = record._meta;
  if (!isRecord(meta) || !Object.hasOwn(meta, key)) return record;
  const { [key]: _dropped, ...rest } = meta;
  const { _meta: _all, ...others } = record;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}

/**
 * The records (JSON objects) in the array at `value`, or an empty list when it is not an array: an element
 * that is no object (`null`, a string, a number, an array) is left out, as an item without its fields is.
 */
export function asRecords(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** A JSON-RPC request id: a string or a (finite) number. */
export function isRequestId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * A Standard Schema that takes any JSON object as is (`what` names it in the one issue it reports): where
 * the gateway reads a payload itself rather than through the SDK's per-method schemas.
 */
export function anyObject(what: string): StandardSchemaV1<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'switchyard',
      validate: (value) =>
        isRecord(value) ? { value } : { issues: [{ message: `${what} must be an object` }] },
    },
  };
}
