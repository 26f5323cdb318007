import { Joined } from './joined.js';
import { redactText } from './redactor.js';
import type { Scanner } from './scanner.js';
import { type Blobs, collect, replace, type WalkLimits } from './walker.js';

/** What scanning one value found. */
export type Inspection<T> =
  | { kind: 'clean' }
  /** Over a bound (`limit`): not scanned, so not to be let through. */
  | { kind: 'unscannable'; limit: 'depth' | 'size' }
  /** Credentials: the rules that found them (sorted, no repeats), and the value with each one redacted. */
  | { kind: 'found'; rules: string[]; redacted: () => T };

/** Scans every string of `value` (see walker.ts; `blobs: 'skip'` for answers) in one pass of `scanner`. */
export async function inspect<T>(
  value: T,
  scanner: Scanner,
  limits: WalkLimits,
  blobs: Blobs = 'scan',
): Promise<Inspection<T>> {
  const collected = collect(value, limits, blobs);
  if (!collected.ok) return { kind: 'unscannable', limit: collected.limit };
  const { texts } = collected.strings;
  if (texts.length === 0) return { kind: 'clean' };
  const joined = new Joined(collected.strings);
  const findings = await scanner.scan(joined.text);
  if (findings.length === 0) return { kind: 'clean' };
  const byString = joined.split(findings);
  const rules = [...new Set(findings.map((f) => f.rule))].sort();
  const redacted = () => {
    const replacements = new Map<number, string>();
    for (const [i, local] of byString) replacements.set(i, redactText(texts[i]!, local));
    return replace(value, replacements, blobs);
  };
  return { kind: 'found', rules, redacted };
}
