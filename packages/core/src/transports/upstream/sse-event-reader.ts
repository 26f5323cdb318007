import { JsonIdScanner } from './json-id-scanner.js';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const NEWLINE = Buffer.from('\n');
/** UTF-8's byte order mark. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Longest field name or event type kept: longer ones are nothing the legacy transport knows. */
const MAX_NAME_BYTES = 64;

export interface SseEventSink {
  /** One event: its type (`message` when it named none) and its data. */
  event(type: string, data: string): void;
  /**
   * An event whose data grew over the limit was discarded as it arrived: its size, its top-level `id` if
   * it had one, and whether it had a `method` (the upstream's own request or notification).
   */
  oversized(id: string | number | undefined, bytes: number, hasMethod: boolean): void;
}

/** Where the reader is in the current line; just after the colon, one space is no part of the value. */
type At = 'name' | 'value-start' | 'value';

/**
 * Parses a `text/event-stream` (WHATWG: `field: value` lines ended by LF, CR or CRLF, an event per blank
 * line) with bounded memory: an event whose data grows over `maxBytes()` is not kept; its bytes are counted
 * and scanned for the message's `id` as they pass (as `LineReader` does for a stdio line), so the request
 * it answered can be failed. Only `event` and `data` matter to the legacy HTTP+SSE transport, which never
 * resumes a stream: `id`, `retry`, comments and unknown fields are read past without being kept.
 */
export class SseEventReader {
  readonly #sink: SseEventSink;
  readonly #maxBytes: () => number;
  #at: At = 'name';
  /** Bytes of the current line so far (a line without any ends an event). */
  #lineBytes = 0;
  #name: number[] = [];
  /** The current line's field, once its name ended. */
  #field: string | undefined;
  /** How much of a byte order mark opening the stream has been skipped (`BOM.length`: past the start). */
  #bom = 0;
  /** The last line ended with CR: an LF opening the next chunk belongs to it. */
  #afterCr = false;
  /** The event's type, as far as it was read (undefined: `message`). */
  #type: number[] | undefined;
  #data: Buffer[] = [];
  #size = 0;
  /** The event has a data line (the next one is joined to it with a newline). */
  #hasData = false;
  /** Set while discarding an oversized event. */
  #scanner: JsonIdScanner | undefined;

  constructor(sink: SseEventSink, maxBytes: () => number) {
    this.#sink = sink;
    this.#maxBytes = maxBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    // One byte order mark opening the stream is no part of it (WHATWG: the first field would be `\uFEFFevent`).
    if (this.#bom < BOM.length) {
      while (start < chunk.length && this.#bom < BOM.length && chunk[start] === BOM[this.#bom]) {
        start += 1;
        this.#bom += 1;
      }
      if (start < chunk.length) this.#bom = BOM.length;
      if (start === chunk.length) return;
    }
    if (this.#afterCr && chunk[start] === LF) start += 1;
    this.#afterCr = false;
    // The next CR and LF, each searched for once per chunk (not once per line: short lines stay linear).
    let cr = -2;
    let lf = -2;
    while (start < chunk.length) {
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
      if (lf !== -1 && lf < start) lf = chunk.indexOf(LF, start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      this.#take(chunk, start, end === -1 ? chunk.length : end);
      if (end === -1) return;
      this.#endLine();
      start = end + 1;
      if (chunk[end] === CR) {
        if (start === chunk.length) this.#afterCr = true;
        else if (chunk[start] === LF) start += 1;
      }
    }
  }

  /** Drops what is buffered (the stream ended or the transport closed). */
  clear(): void {
    this.#endEvent();
    this.#at = 'name';
    this.#lineBytes = 0;
    this.#name = [];
    this.#field = undefined;
    this.#afterCr = false;
  }

  #take(chunk: Buffer, start: number, end: number): void {
    this.#lineBytes += end - start;
    let i = start;
    if (this.#at === 'name') {
      const colon = chunk.subarray(i, end).indexOf(COLON);
      const stop = colon === -1 ? end : i + colon;
      const keep = Math.min(stop, i + MAX_NAME_BYTES + 1 - this.#name.length);
      for (let j = i; j < keep; j++) this.#name.push(chunk[j]!);
      if (colon === -1) return;
      this.#openField();
      this.#at = 'value-start';
      i = stop + 1;
    }
    if (this.#at === 'value-start' && i < end) {
      this.#at = 'value';
      if (chunk[i] === SPACE) i += 1;
    }
    if (i >= end) return;
    if (this.#field === 'data') this.#addData(chunk, i, end);
    else if (this.#field === 'event' && this.#type && this.#type.length <= MAX_NAME_BYTES)
      for (let j = i; j < end && this.#type.length <= MAX_NAME_BYTES; j++) this.#type.push(chunk[j]!);
  }

  /** The current line's name ended (at its colon or, without one, at its end): its value follows. */
  #openField(): void {
    const name = Buffer.from(this.#name).toString('utf8');
    this.#name = [];
    this.#field = name;
    if (name === 'event') this.#type = [];
    else if (name === 'data') {
      if (this.#hasData) this.#addData(NEWLINE, 0, 1);
      this.#hasData = true;
    }
  }

  #addData(chunk: Buffer, start: number, end: number): void {
    this.#size += end - start;
    if (this.#scanner) {
      this.#scanner.feed(chunk, start, end);
      return;
    }
    this.#data.push(chunk.subarray(start, end));
    if (this.#size > this.#maxBytes()) {
      this.#scanner = new JsonIdScanner();
      for (const part of this.#data) this.#scanner.feed(part);
      this.#data = [];
    }
  }

  #endLine(): void {
    const blank = this.#lineBytes === 0;
    if (this.#at === 'name' && !blank) this.#openField();
    this.#at = 'name';
    this.#lineBytes = 0;
    this.#field = undefined;
    if (blank) this.#dispatch();
  }

  #dispatch(): void {
    const type = this.#type === undefined ? 'message' : Buffer.from(this.#type).toString('utf8');
    const scanner = this.#scanner;
    const size = this.#size;
    const data = scanner || size === 0 ? undefined : Buffer.concat(this.#data, size).toString('utf8');
    this.#endEvent();
    if (scanner) this.#sink.oversized(scanner.id, size, scanner.hasMethod);
    else if (data !== undefined) this.#sink.event(type || 'message', data);
  }

  #endEvent(): void {
    this.#type = undefined;
    this.#data = [];
    this.#size = 0;
    this.#hasData = false;
    this.#scanner = undefined;
  }
}
