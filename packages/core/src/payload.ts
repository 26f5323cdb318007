/** Reading untyped JSON-RPC payloads (upstream results, request params) without trusting their shape. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The array at `value` as records, or an empty list when it is not an array. */
export function asRecords(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
}
