import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './derive-key.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The longest token a box opens (anything longer is refused unread) and so the longest it seals. */
const MAX_SEALED_CHARS = 4096;

/** A value too large for its box: a token this box could not open again is never handed out. */
export class SealedTooLarge extends RangeError {}

/** The bound for boxes whose tokens only the gateway keeps (store values, never a client's input). */
export const MAX_STORED_SEALED_CHARS = 65_536;

/**
 * Seals small JSON values into opaque tokens (AES-256-GCM: encrypted and authenticated) that only a
 * holder of the same secret can open: anything altered, forged or sealed under another key opens to
 * undefined. The key is derived from `secret` and `label` (one label per kind of token, so a token of one
 * kind never opens as another); without a secret it is random per process. A token is at most `maxChars`
 * long (default 4096): longer ones are refused unread, and a value that would seal longer throws
 * {@link SealedTooLarge} rather than make a token that never opens.
 *
 * @example
 * const box = new SealedBox(secret, 'switchyard/task-id/v1', 'swt1.');
 * const token = box.seal({ a: 1 });
 * box.open(token); // { a: 1 }
 */
export class SealedBox {
  readonly #key: Buffer;
  readonly #prefix: string;
  readonly maxChars: number;

  constructor(secret: string | undefined, label: string, prefix: string, maxChars = MAX_SEALED_CHARS) {
    this.#key = deriveKey(label, secret);
    this.#prefix = prefix;
    this.maxChars = maxChars;
  }

  seal(value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    const token = this.#prefix + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    if (token.length > this.maxChars) {
      throw new SealedTooLarge(`a sealed token of ${token.length} characters (at most ${this.maxChars})`);
    }
    return token;
  }

  /** The value `raw` seals, when this box sealed it; else undefined. */
  open(raw: unknown): unknown {
    if (typeof raw !== 'string' || !raw.startsWith(this.#prefix) || raw.length > this.maxChars)
      return undefined;
    const text = raw.slice(this.#prefix.length);
    const bytes = Buffer.from(text, 'base64url');
    // Base64url decoding skips stray characters and ignores a last character's spare bits: only the one
    // text this box could have written opens, so no value has two tokens.
    if (bytes.length <= IV_BYTES + TAG_BYTES || bytes.toString('base64url') !== text) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return JSON.parse(plain.toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }
}
