import { JsonIdScanner } from './json-id-scanner.js';

const NEWLINE = 0x0a;

export interface LineSink {
  line(text: string): void;
  /**
   * A line over the limit was discarded as it arrived: its size, its top-level `id` if it had one, and
   * whether it had a `method` (the upstream's own request or notification rather than an answer).
   */
  oversized(id: string | number | undefined, bytes: number, hasMethod: boolean): void;
}

/**
 * Splits a byte stream into newline-delimited lines (stdio's framing) with bounded memory: a line longer
 * than `maxBytes()` is not kept; its bytes are counted and scanned for the message's `id` as they pass, so
 * the request it answered can be failed. Chunks are kept in a list and joined once per line (no copy of
 * everything read so far on every chunk).
 */
export class LineReader {
  readonly #sink: LineSink;
  readonly #maxBytes: () => number;
  #parts: Buffer[] = [];
  #size = 0;
  /** Set while discarding an oversized line. */
  #scanner: JsonIdScanner | undefined;

  constructor(sink: LineSink, maxBytes: () => number) {
    this.#sink = sink;
    this.#maxBytes = maxBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.#take(chunk, start, end);
      if (nl === -1) return;
      this.#endLine();
      start = nl + 1;
    }
  }

  #take(chunk: Buffer, start: number, end: number): void {
    if (end === start) return;
    this.#size += end - start;
    if (this.#scanner) {
      this.#scanner.feed(chunk, start, end);
      return;
    }
    this.#parts.push(chunk.subarray(start, end));
    if (this.#size > this.#maxBytes()) {
      this.#scanner = new JsonIdScanner();
      for (const part of this.#parts) this.#scanner.feed(part);
      this.#parts = [];
    }
  }

  #endLine(): void {
    const scanner = this.#scanner;
    const size = this.#size;
    const parts = this.#parts;
    this.#scanner = undefined;
    this.#parts = [];
    this.#size = 0;
    if (scanner) {
      this.#sink.oversized(scanner.id, size, scanner.hasMethod);
      return;
    }
    if (size === 0) return;
    const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)).toString('utf8');
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() !== '') this.#sink.line(line);
  }

  /** Drops what is buffered (the stream ended or the transport closed). */
  clear(): void {
    this.#parts = [];
    this.#size = 0;
    this.#scanner = undefined;
  }
}
