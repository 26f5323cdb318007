/** How many of a server's last stderr lines are kept to say why it exited. */
export const STDERR_TAIL_LINES = 5;
/** A kept line longer than this is cut (with `…`). */
const MAX_LINE_CHARS = 300;
/** Unterminated output kept at most, waiting for its newline. */
const MAX_PENDING_CHARS = 16_384;

/**
 * The last few lines a spawned server printed on stderr, bounded however much it prints: what a server
 * that dies at start says about why (a missing module, a bad flag). Blank lines and stack frames
 * (`    at …`) are skipped: Node's and Python's last lines are the error, not the stack under it.
 */
export class StderrTail {
  readonly #lines: string[] = [];
  #pending = '';

  push(chunk: Buffer | string): void {
    this.#pending += chunk.toString();
    let nl = this.#pending.indexOf('\n');
    while (nl >= 0) {
      this.#keep(this.#pending.slice(0, nl));
      this.#pending = this.#pending.slice(nl + 1);
      nl = this.#pending.indexOf('\n');
    }
    if (this.#pending.length > MAX_PENDING_CHARS) this.#pending = this.#pending.slice(-MAX_PENDING_CHARS);
  }

  /** The kept lines, oldest first, an unterminated last line included. */
  lines(): string[] {
    const pending = clean(this.#pending);
    return pending === undefined ? [...this.#lines] : [...this.#lines, pending].slice(-STDERR_TAIL_LINES);
  }

  #keep(raw: string): void {
    const line = clean(raw);
    if (line === undefined) return;
    this.#lines.push(line);
    if (this.#lines.length > STDERR_TAIL_LINES) this.#lines.shift();
  }
}

function clean(raw: string): string | undefined {
  const line = raw.replace(/\r$/, '').trim();
  if (line.length === 0 || /^at\s/.test(line)) return undefined;
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}
