/** A WARN/ERROR log line (Switchyard's log format) or a Node process warning (`(node:PID) XyzWarning: …`). */
export const WARNING_LINE = /\b(WARN|ERROR)\b|Warning: /;

export interface WarningTallyOptions {
  /** A warning line's kind; default: the line without its leading timestamp, every digit run as `#`. */
  kind?: (line: string) => string;
  /** Distinct kinds counted (a new kind past this is dropped); default 100. */
  maxKinds?: number;
}

/** The line without a leading ISO timestamp, digit runs masked: repeats of one warning share a kind. */
export function warningKind(line: string): string {
  return line.replace(/^\S*\d{4}-\d\d-\d\dT\S+\s+/, '').replace(/\d+/g, '#');
}

/**
 * Counts the warning lines of a process's output by kind (kind → occurrences), so a report can say
 * "12 × upstream disconnected" instead of listing every line.
 */
export class WarningTally {
  readonly counts = new Map<string, number>();
  readonly #kind: (line: string) => string;
  readonly #maxKinds: number;

  constructor(options: WarningTallyOptions = {}) {
    this.#kind = options.kind ?? warningKind;
    this.#maxKinds = options.maxKinds ?? 100;
  }

  /** Counts `line` if it is a warning line. */
  add(line: string): void {
    if (!WARNING_LINE.test(line)) return;
    const kind = this.#kind(line);
    const seen = this.counts.get(kind);
    if (seen !== undefined || this.counts.size < this.#maxKinds) this.counts.set(kind, (seen ?? 0) + 1);
  }
}
