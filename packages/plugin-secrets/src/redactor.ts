import type { Finding } from './scanner.js';

/** What a credential is replaced with: `[REDACTED:github]`. */
export function marker(rule: string): string {
  return `[REDACTED:${rule}]`;
}

/**
 * `text` with each finding's range replaced by `[REDACTED:<rule>]`. Overlapping or touching ranges
 * become one marker (named after the first of them), so no part of a credential survives between two.
 */
export function redactText(text: string, findings: readonly Finding[]): string {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let at = 0;
  let i = 0;
  while (i < sorted.length) {
    const first = sorted[i]!;
    let end = first.end;
    i += 1;
    while (i < sorted.length && sorted[i]!.start <= end) {
      end = Math.max(end, sorted[i]!.end);
      i += 1;
    }
    const start = Math.max(first.start, at);
    out += text.slice(at, start) + marker(first.rule);
    at = Math.max(at, end);
  }
  return out + text.slice(at);
}
