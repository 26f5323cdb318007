import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './derive-key.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_SEALED_CHARS = 4096;

/**
 * Seals small JSON values into opaque tokens (AES-256-GCM: encrypted and authenticated) that only a
 * holder of the same secret can open: anything altered, forged or sealed under another key opens to
 * undefined. The key is derived from `secret` and `label` (one label per kind of token, so a token of one
 * kind never opens as another); without a secret it is random per process.
 *
 * @example
 * const box = new SealedBox(secret, 'switchyard/task-id/v1', 'swt1.');
 * const token = box.seal({ a: 1 });
 * box.open(token); // { a: 1 }
 */
export class SealedBox {
  readonly #key: Buffer;
  readonly #prefix: string;

  constructor(secret: string | undefined, label: string, prefix: string) {
    this.#key = deriveKey(label, secret);
    this.#prefix = prefix;
  }

  seal(value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return this.#prefix + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The value `raw` seals, when this box sealed it; else undefined. */
  open(raw: unknown): unknown {
    if (typeof raw !== 'string' || !raw.startsWith(this.#prefix) || raw.length > MAX_SEALED_CHARS)
      return undefined;
    const bytes = Buffer.from(raw.slice(this.#prefix.length), 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
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
