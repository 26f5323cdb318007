import { EVENT_FIELDS, NESTED_EVENT_FIELDS } from './event.js';
import { NESTED_FIELDS, RECORD_FIELDS } from './record.js';

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

/** A validated dotted path into an audit record, split into its segments. */
export type RedactionPath = readonly string[];

/** Every field a `redact` path may start with: a request record's, then an event line's own. */
const FIELDS: readonly string[] = [...new Set<string>([...RECORD_FIELDS, ...EVENT_FIELDS])];
const NESTED: readonly string[] = [...NESTED_FIELDS, ...NESTED_EVENT_FIELDS];

/**
 * Checks and splits `redact` paths. A path names a record field (`uri`, `identity`, `session`, …) or
 * reaches into the nested `params` object (`params.argument.value`), or an event line's `detail`
 * (`detail.name`); unknown fields are refused, so a typo cannot silently leave a value in the log.
 */
export function compileRedactions(paths: readonly string[]): RedactionPath[] {
  return paths.map((path) => {
    const segments = path.split('.');
    const [field] = segments;
    if (segments.some((s) => s === '')) throw new Error(`"${path}" has an empty segment`);
    if (field === undefined || !FIELDS.includes(field)) {
      throw new Error(`"${path}" names no record field (fields: ${FIELDS.join(', ')})`);
    }
    if (segments.length > 1 && !NESTED.includes(field)) {
      throw new Error(`"${path}": ${field} is not an object; only ${NESTED.join(', ')} can be entered`);
    }
    return segments;
  });
}

/**
 * Returns `record` with the value at each path replaced by {@link REDACTED}. Paths that are absent
 * are skipped. The input is never mutated: objects along a redacted path are copied.
 */
export function redact<T extends object>(record: T, paths: readonly RedactionPath[]): T {
  let out = record as Record<string, unknown>;
  for (const path of paths) out = redactPath(out, path, 0);
  return out as T;
}

function redactPath(
  node: Record<string, unknown>,
  path: RedactionPath,
  depth: number,
): Record<string, unknown> {
  const key = path[depth];
  if (key === undefined || !Object.hasOwn(node, key)) return node;
  const value = node[key];
  if (depth === path.length - 1) return { ...node, [key]: REDACTED };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return node;
  const inner = redactPath(value as Record<string, unknown>, path, depth + 1);
  return inner === value ? node : { ...node, [key]: inner };
}
