/** A child's output streams. */
export type OutputStream = 'stdout' | 'stderr';

/**
 * The newest complete lines of one output stream, within a character budget, plus the line still being
 * written. Old lines are dropped from the front, so a chatty child costs bounded memory.
 */
export class LineBuffer {
  readonly #limit: number;
  #lines: string[] = [];
  /** Index of the oldest kept line (dropping from the front without shifting the array each time). */
  #start = 0;
  #chars = 0;
  #partial = '';
  /** The stream ended without a final newline (text() must not add one). */
  #unterminated = false;

  constructor(limitChars: number) {
    this.#limit = limitChars;
  }

  /** Appends a chunk and returns the lines it completed (without their `\n` or `\r\n`). */
  push(chunk: string): string[] {
    // Most chunks of a long line complete nothing: appending them is cheap, splitting the whole line again
    // for each would cost its length squared (a 10 MiB line arrives in ~160 chunks).
    if (!chunk.includes('\n') && this.#partial.length + chunk.length <= this.#limit) {
      this.#partial += chunk;
      return [];
    }
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    // A line longer than the whole budget is cut into budget-sized lines rather than held forever.
    while (this.#partial.length > this.#limit) {
      parts.push(this.#partial.slice(0, this.#limit));
      this.#partial = this.#partial.slice(this.#limit);
    }
    const lines = parts.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    for (const line of lines) this.#keep(line);
    return lines;
  }

  /** The stream ended: its unterminated last line, if any, is complete now. */
  end(): string[] {
    if (this.#partial === '') return [];
    const line = this.#partial;
    this.#partial = '';
    this.#keep(line);
    this.#unterminated = true;
    return [line];
  }

  /** The kept complete lines, oldest first. */
  lines(): string[] {
    return this.#lines.slice(this.#start);
  }

  /** The kept output as text (complete lines, then the partial one). */
  text(): string {
    const lines = this.lines();
    if (lines.length === 0) return this.#partial;
    return this.#unterminated ? lines.join('\n') : `${lines.join('\n')}\n${this.#partial}`;
  }

  #keep(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length + 1;
    while (this.#chars > this.#limit && this.#start < this.#lines.length - 1) {
      this.#chars -= (this.#lines[this.#start]?.length ?? 0) + 1;
      this.#start += 1;
    }
    if (this.#start > 1024 && this.#start * 2 > this.#lines.length) {
      this.#lines = this.#lines.slice(this.#start);
      this.#start = 0;
    }
  }
}

/** The last `size` lines of both streams in the order they arrived, each tagged `stdout: ` or `stderr: `. */
export class OutputTail {
  readonly #size: number;
  #lines: string[] = [];

  constructor(size: number) {
    this.#size = size;
  }

  add(stream: OutputStream, line: string): void {
    this.#lines.push(`${stream}: ${line}`);
    if (this.#lines.length > this.#size * 2) this.#lines = this.#lines.slice(-this.#size);
  }

  lines(): string[] {
    return this.#lines.slice(-this.#size);
  }
}
