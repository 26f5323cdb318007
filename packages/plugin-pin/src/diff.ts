import { PINNED_FIELDS, type PinKind } from './digest.js';

/** Longest `before` or `after` shown, in characters; a longer one is cut and ends with `…`. */
export const MAX_DIFF_CHARS = 4096;

/** One pinned field of a quarantined definition, as the status page shows it. */
export interface FieldDiff {
  field: string;
  /** The pinned value: text as is, anything else as indented JSON; empty when absent (or for a new one). */
  before: string;
  /** The value listed now, likewise. */
  after: string;
}

/**
 * The differing fields between a pinned definition and the one listed now, readably: `fields` when the
 * pinned definition is known; for a new one (no pin), every pinned field it has, against nothing.
 * Empty when the pin's definition is unknown (nothing to compare with).
 */
export function definitionDiff(
  kind: PinKind,
  verdict: 'new' | 'changed',
  fields: readonly string[],
  before: Readonly<Record<string, unknown>> | undefined,
  after: Readonly<Record<string, unknown>>,
): FieldDiff[] {
  if (verdict === 'changed' && before === undefined) return [];
  const shown = verdict === 'new' ? PINNED_FIELDS[kind].filter((f) => after[f] !== undefined) : fields;
  return shown.map((field) => ({ field, before: readable(before?.[field]), after: readable(after[field]) }));
}

/** A value as short readable text: a string as is, anything else as two-space indented JSON, capped. */
export function readable(value: unknown): string {
  let text: string;
  if (value === undefined) text = '';
  else if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value, null, 2) ?? '';
    } catch {
      text = String(value);
    }
  }
  return text.length <= MAX_DIFF_CHARS ? text : `${text.slice(0, MAX_DIFF_CHARS - 1)}…`;
}
