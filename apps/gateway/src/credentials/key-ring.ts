import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from '@switchyard/core/listener';

/** One label for every key of the ring, so a credentials key never opens (or seals) another kind of token. */
const LABEL = 'switchyard/credentials/v1';
const PREFIX = 'syc1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/**
 * Anything longer is not ours. Far above real grants (two JWTs of a few KB each): SealedBox's 4096-char cap
 * is too small for them, hence this ring.
 */
const MAX_SEALED_CHARS = 1_048_576;

/** What `open` found: the plain text, and whether a previous key sealed it (seal it again under the current one). */
export interface Opened {
  plain: string;
  stale: boolean;
}

/**
 * The keys credentials are sealed under (AES-256-GCM, encrypted and authenticated): the current key seals,
 * the current one and then each previous one open, so `credentials.key` can be rotated without losing what
 * the store holds. Each key is derived from its secret (`deriveKey`, label `switchyard/credentials/v1`).
 *
 * Every value is bound to where it is stored (`context`, the store key, as GCM additional data): a value
 * copied under another key (another person's, another upstream's) does not open there.
 *
 * @example
 * const ring = new KeyRing(newKey, [oldKey]);
 * const opened = ring.open(raw, 'grant:…'); // { plain, stale: true } when oldKey sealed it
 * if (opened?.stale) store.set('grant:…', ring.seal(opened.plain, 'grant:…'));
 */
export class KeyRing {
  readonly #keys: readonly Buffer[];

  constructor(key: string, previousKeys: readonly string[] = []) {
    if (key.length === 0) throw new Error('credentials.key is empty: set it to a long random secret');
    const secrets = [key, ...previousKeys.filter((previous) => previous.length > 0 && previous !== key)];
    this.#keys = secrets.map((secret) => deriveKey(LABEL, secret));
  }

  /** Seals `plain` under the current key, bound to `context`. */
  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys[0]!, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** What `sealed` holds, when a key of the ring sealed it for `context`; undefined when none opens it. */
  open(sealed: string, context: string): Opened | undefined {
    if (!sealed.startsWith(PREFIX) || sealed.length > MAX_SEALED_CHARS) return undefined;
    const bytes = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    for (const [index, key] of this.#keys.entries()) {
      const plain = decrypt(key, bytes, context);
      if (plain !== undefined) return { plain, stale: index > 0 };
    }
    return undefined;
  }
}

function decrypt(key: Buffer, bytes: Buffer, context: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}
