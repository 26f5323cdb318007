import { JsonIdScanner } from './json-id-scanner.js';

const CR_LF_CR_LF = Buffer.from('\r\n\r\n');
/** A response head longer than this is no upgrade we can follow: its bytes pass on untouched. */
const MAX_HEAD_BYTES = 64 * 1024;
/** Longest frame header a server sends: 2 bytes, 8 of extended length (a server never masks). */
const MAX_FRAME_HEADER = 10;
const CONTINUATION = 0x0;
const TEXT = 0x1;
const BINARY = 0x2;
/** 2^53 − 1 split at 2^32: a larger 64-bit length is one `ws` refuses itself. */
const MAX_LENGTH_HIGH = 2 ** 21 - 1;
/**
 * A message over the limit is dropped as it arrives, the connection kept; one declaring more than this is
 * not waited for (a frame header claiming 2^52 bytes would swallow every later byte, keepalive pongs too,
 * until the keepalive gave up): the connection is given up at once.
 */
export const MAX_DROPPED_BYTES = 2 ** 30;

export interface MessageFilterSink {
  /** Bytes for the WebSocket library, unchanged and in order. */
  pass(bytes: Buffer): void;
  /**
   * A data message over the limit was dropped as it arrived: its payload size, its top-level `id` if it
   * had one, whether it had a `method`, and whether it came as binary frames.
   */
  oversized(id: string | number | undefined, bytes: number, hasMethod: boolean, binary: boolean): void;
  /** A data message declared more than `MAX_DROPPED_BYTES` (`bytes` so far): nothing more passes on. */
  unbounded(bytes: number): void;
}

type Phase = 'head' | 'frames' | 'raw' | 'given-up';
/** What becomes of the current frame's payload: handed on as it arrives, held with its message, or dropped. */
type Payload = 'pass' | 'hold' | 'drop';

/**
 * Sits between an upstream's socket and `ws` (whose receiver buffers a whole message before it can
 * measure it, and closes the connection, 1009, past `maxPayload`): reads the server's frame headers and
 * drops a data message whose payload goes over `maxBytes()` as it arrives, its bytes counted and scanned
 * for the message's `id`, so that only the request it answered fails and the connection stays. Everything
 * else passes unchanged: the HTTP response head, control frames, and messages within the limit; one
 * sent in several frames is held until its last (bounded by the limit) so that one going over is never
 * partly handed on. Anything that breaks the protocol (a reserved bit, a masked or unknown frame, a stray
 * continuation) switches to passing every byte on: `ws` refuses it at its header and closes.
 */
export class WsMessageFilter {
  readonly #sink: MessageFilterSink;
  readonly #maxBytes: () => number;
  #phase: Phase = 'head';
  /** The response head read so far (until its blank line). */
  #head: Buffer = Buffer.alloc(0);
  readonly #header = Buffer.alloc(MAX_FRAME_HEADER);
  #headerLength = 0;
  /** Payload bytes of the current frame still to come (0: a frame header is next). */
  #remaining = 0;
  #payload: Payload = 'pass';
  /** The current frame is the last of its message (FIN). */
  #fin = false;
  /** Inside a data message whose last frame has not come yet. */
  #fragmented = false;
  #binary = false;
  /** The current message's payload bytes so far, and the limit it is held to (read when it began). */
  #size = 0;
  #limit = 0;
  /** A message sent in several frames, as raw bytes (headers too), and its payload alone. */
  #held: Buffer[] = [];
  #heldPayload: Buffer[] = [];
  /** Set while dropping an oversized message. */
  #scanner: JsonIdScanner | undefined;

  constructor(sink: MessageFilterSink, maxBytes: () => number) {
    this.#sink = sink;
    this.#maxBytes = maxBytes;
  }

  push(chunk: Buffer): void {
    let at = 0;
    if (this.#phase === 'head') at = this.#readHead(chunk);
    while (at < chunk.length) {
      if (this.#phase === 'given-up') return;
      if (this.#phase === 'raw') {
        this.#sink.pass(at === 0 ? chunk : chunk.subarray(at));
        return;
      }
      if (this.#remaining === 0) at = this.#readHeader(chunk, at);
      else at = this.#readPayload(chunk, at);
    }
  }

  /** Passes the response head on; frames follow it only after a `101`. Returns where the head ended. */
  #readHead(chunk: Buffer): number {
    const from = Math.max(0, this.#head.length - (CR_LF_CR_LF.length - 1));
    const joined = Buffer.concat([this.#head, chunk]);
    const end = joined.indexOf(CR_LF_CR_LF, from);
    if (end === -1) {
      this.#head = joined;
      if (joined.length > MAX_HEAD_BYTES) this.#toRaw();
      this.#sink.pass(chunk);
      return chunk.length;
    }
    const at = end + CR_LF_CR_LF.length - this.#head.length;
    this.#sink.pass(chunk.subarray(0, at));
    this.#phase = /^HTTP\/1\.[01] 101 /.test(joined.toString('latin1', 0, 13)) ? 'frames' : 'raw';
    this.#head = Buffer.alloc(0);
    return at;
  }

  #readHeader(chunk: Buffer, at: number): number {
    const header = this.#header;
    while (at < chunk.length) {
      header[this.#headerLength++] = chunk[at++]!;
      if (this.#headerLength < 2) continue;
      const short = header[1]! & 0x7f;
      const size = 2 + (short === 126 ? 2 : short === 127 ? 8 : 0);
      if (this.#headerLength === size) {
        this.#frame(header.subarray(0, size));
        return at;
      }
    }
    return at;
  }

  /** A whole frame header: decides what becomes of its payload. */
  #frame(header: Buffer): void {
    this.#headerLength = 0;
    const fin = (header[0]! & 0x80) !== 0;
    const opcode = header[0]! & 0x0f;
    const short = header[1]! & 0x7f;
    let length = short;
    if (short === 126) length = header.readUInt16BE(2);
    else if (short === 127) {
      const high = header.readUInt32BE(2);
      length = high > MAX_LENGTH_HIGH ? -1 : high * 2 ** 32 + header.readUInt32BE(6);
    }
    const data = opcode === CONTINUATION || opcode === TEXT || opcode === BINARY;
    const valid =
      (header[0]! & 0x70) === 0 && // no reserved bit: nothing negotiated (no permessage-deflate)
      (header[1]! & 0x80) === 0 && // a server never masks
      length >= 0 &&
      (data
        ? (opcode === CONTINUATION) === this.#fragmented
        : opcode >= 0x8 && opcode <= 0xa && fin && short <= 125);
    if (!valid) {
      this.#toRaw(header);
      return;
    }
    this.#fin = fin;
    this.#remaining = length;
    if (!data) {
      this.#sink.pass(Buffer.from(header)); // a control frame, also between the frames of a held message
      this.#payload = 'pass';
      return;
    }
    if (!this.#fragmented) {
      this.#binary = opcode === BINARY;
      this.#size = 0;
      this.#limit = this.#maxBytes();
    }
    this.#fragmented = !fin;
    this.#size += length;
    if (this.#size > MAX_DROPPED_BYTES) {
      this.#phase = 'given-up';
      this.#held = [];
      this.#heldPayload = [];
      this.#scanner = undefined;
      this.#sink.unbounded(this.#size);
      return;
    }
    if (!this.#scanner && this.#size > this.#limit) {
      this.#scanner = new JsonIdScanner();
      for (const part of this.#heldPayload) this.#scanner.feed(part);
      this.#held = [];
      this.#heldPayload = [];
    }
    if (this.#scanner) this.#payload = 'drop';
    else if (fin && this.#held.length === 0) {
      this.#sink.pass(Buffer.from(header));
      this.#payload = 'pass';
    } else {
      this.#held.push(Buffer.from(header));
      this.#payload = 'hold';
    }
    if (length === 0) this.#frameEnd();
  }

  #readPayload(chunk: Buffer, at: number): number {
    const end = Math.min(chunk.length, at + this.#remaining);
    const part = chunk.subarray(at, end);
    this.#remaining -= end - at;
    if (this.#payload === 'pass') this.#sink.pass(part);
    else if (this.#payload === 'hold') {
      this.#held.push(part);
      this.#heldPayload.push(part);
    } else this.#scanner!.feed(part);
    if (this.#remaining === 0) this.#frameEnd();
    return end;
  }

  /** The current frame's payload is complete; after a data message's last frame, the message is too. */
  #frameEnd(): void {
    if (this.#payload === 'pass' || !this.#fin) return;
    const scanner = this.#scanner;
    const held = this.#held;
    this.#scanner = undefined;
    this.#held = [];
    this.#heldPayload = [];
    if (scanner) this.#sink.oversized(scanner.id, this.#size, scanner.hasMethod, this.#binary);
    else this.#sink.pass(Buffer.concat(held));
  }

  /** Stops filtering: what is held (then `header`) passes on, and so does every byte after it. */
  #toRaw(header?: Buffer): void {
    this.#phase = 'raw';
    const held = [...this.#held, ...(header ? [Buffer.from(header)] : [])];
    this.#held = [];
    this.#heldPayload = [];
    this.#scanner = undefined;
    if (held.length > 0) this.#sink.pass(Buffer.concat(held));
  }
}
