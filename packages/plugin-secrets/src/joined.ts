import type { Finding } from './scanner.js';
import type { Strings } from './walker.js';

/**
 * The strings of a value joined into one text, so one scan covers them all (a scan has a fixed cost
 * per call), with the offsets to map a finding back to the strings it falls in.
 */
export class Joined {
  readonly text: string;
  /** Where each string starts in `text`. */
  readonly #starts: number[];
  readonly #lengths: number[];

  constructor(strings: Strings) {
    const parts: string[] = [];
    this.#starts = [];
    this.#lengths = [];
    let at = 0;
    strings.texts.forEach((text, i) => {
      const separator = strings.separators[i] ?? '\n';
      this.#starts.push(at);
      this.#lengths.push(text.length);
      parts.push(text, separator);
      at += text.length + separator.length;
    });
    this.text = parts.join('');
  }

  /**
   * Each finding cut into the parts that fall in single strings, by string index, with offsets local
   * to that string. A finding across a separator (a key and its value, a PEM block split in two)
   * marks both strings; what falls only on separators is dropped.
   */
  split(findings: readonly Finding[]): Map<number, Finding[]> {
    const byString = new Map<number, Finding[]>();
    for (const finding of findings) {
      for (let i = this.#indexAt(finding.start); i < this.#starts.length; i++) {
        const start = this.#starts[i]!;
        if (start >= finding.end) break;
        const localStart = Math.max(0, finding.start - start);
        const localEnd = Math.min(this.#lengths[i]!, finding.end - start);
        if (localEnd <= localStart) continue;
        const list = byString.get(i) ?? [];
        list.push({ rule: finding.rule, start: localStart, end: localEnd });
        byString.set(i, list);
      }
    }
    return byString;
  }

  /** The index of the string holding offset `at` (or the separator after it): binary search. */
  #indexAt(at: number): number {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return Math.max(0, lo);
  }
}
