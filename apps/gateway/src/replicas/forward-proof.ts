import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '@switchyard/core/listener';

/** The header a replica sets on a request it forwards to the session's owner. */
export const FORWARDED_HEADER = 'x-switchyard-forwarded';

/**
 * What only a replica can write: an HMAC under a key derived from `cursorSecret` for one `purpose`, so a
 * value made for one purpose proves nothing for another.
 */
export class ReplicaSeal {
  readonly #key: Buffer;

  constructor(purpose: string, secret: string | undefined) {
    this.#key = deriveKey(purpose, secret);
  }

  sign(text: string): string {
    return createHmac('sha256', this.#key).update(text).digest('base64url');
  }

  verify(text: string, value: unknown): boolean {
    if (typeof value !== 'string') return false;
    const expected = Buffer.from(this.sign(text));
    const given = Buffer.from(value);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/**
 * Proves a forwarded request came from a replica (a seal of the session key): the owner then serves it
 * itself and never forwards it again, so a request takes at most one extra hop. A client cannot make one up.
 */
export class ForwardProof extends ReplicaSeal {
  constructor(secret: string | undefined) {
    super('switchyard/session-forward/v1', secret);
  }
}
