type RequestId = string | number;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** Longest id (string or number text) kept; a longer one is nothing the gateway sent. */
const MAX_ID_CHARS = 256;

/**
 * Finds the top-level `"id"` of one JSON-RPC message fed in chunks, and whether it has a top-level
 * `"method"` (then it is the upstream's own request or notification, not an answer), without keeping the
 * message: how the gateway fails the request a message over the size limit answered, or answers the
 * upstream's oversized request, while discarding it as it arrives. The id may come first or last (SDK v1
 * servers write `{"result":…,"jsonrpc":"2.0","id":1}`).
 */
export class JsonIdScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** At depth 1, the next string is a key. */
  #expectKey = false;
  /** Capturing the current string (a top-level key, or the id's value). */
  #capture: number[] | undefined;
  #capturingKey = false;
  #lastKey: string | undefined;
  /** After `"id":` at depth 1, until the value is read. */
  #awaitingId = false;
  #number: string | undefined;
  #id: RequestId | undefined;
  #hasMethod = false;

  /** The id, once read. */
  get id(): RequestId | undefined {
    return this.#id;
  }

  /** Whether a top-level `"method"` key was seen (a request or notification, not a response). */
  get hasMethod(): boolean {
    return this.#hasMethod;
  }

  feed(chunk: Uint8Array, start = 0, end = chunk.length): void {
    for (let i = start; i < end; i++) {
      // The bulk of a big message is string content nobody captures: skip it without a call per byte.
      if (this.#inString && this.#capture === undefined) {
        let escaped = this.#escaped;
        while (i < end) {
          const b = chunk[i]!;
          if (escaped) escaped = false;
          else if (b === BACKSLASH) escaped = true;
          else if (b === QUOTE) break;
          i++;
        }
        this.#escaped = escaped;
        if (i >= end) return;
      }
      this.#byte(chunk[i]!);
    }
  }

  #byte(b: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) this.#escaped = true;
      else if (b === QUOTE) {
        this.#inString = false;
        this.#endString();
        return;
      }
      if (this.#capture && this.#capture.length <= MAX_ID_CHARS) this.#capture.push(b);
      return;
    }
    if (this.#number !== undefined) {
      if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45) {
        if (this.#number.length <= MAX_ID_CHARS) this.#number += String.fromCharCode(b);
        return;
      }
      const text = this.#number;
      this.#number = undefined;
      const n = Number(text);
      if (text.length <= MAX_ID_CHARS && Number.isFinite(n) && this.#id === undefined) this.#id = n;
    }
    if (b === QUOTE) {
      this.#inString = true;
      const key = this.#depth === 1 && this.#expectKey;
      const value = this.#depth === 1 && this.#awaitingId;
      this.#capturingKey = key;
      this.#capture = key || value ? [] : undefined;
      this.#awaitingId = false;
      this.#expectKey = false;
      return;
    }
    if (this.#awaitingId && (b === 0x2d || (b >= 0x30 && b <= 0x39))) {
      this.#awaitingId = false;
      this.#number = String.fromCharCode(b);
      return;
    }
    if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      this.#depth += 1;
      this.#awaitingId = false;
      this.#expectKey = this.#depth === 1 && b === OPEN_BRACE;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      this.#depth -= 1;
    } else if (this.#depth === 1 && b === COMMA) {
      this.#expectKey = true;
    } else if (this.#depth === 1 && b === COLON) {
      this.#awaitingId = this.#lastKey === 'id';
    }
  }

  #endString(): void {
    const bytes = this.#capture;
    this.#capture = undefined;
    if (bytes === undefined || bytes.length > MAX_ID_CHARS) {
      if (this.#capturingKey) this.#lastKey = undefined;
      return;
    }
    let text: string;
    try {
      text = JSON.parse(`"${Buffer.from(bytes).toString('utf8')}"`) as string;
    } catch {
      // Not a JSON string (a raw control character): no key, so the value after it is not the id.
      if (this.#capturingKey) this.#lastKey = undefined;
      return;
    }
    if (this.#capturingKey) {
      this.#lastKey = text;
      if (text === 'method') this.#hasMethod = true;
    } else if (this.#id === undefined) this.#id = text;
  }
}
