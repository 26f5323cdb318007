import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '@switchyard/core/listener';

/** The header a replica sets on a request it forwards to the session's owner. */
export const FORWARDED_HEADER = 'x-switchyard-forwarded';

/**
 * Proves a forwarded request came from a replica (an HMAC of the session key under a key from
 * `cursorSecret`): the owner then serves it itself and never forwards it again, so a request takes at
 * most one extra hop. A client cannot make one up.
 */
export class ForwardProof {
  readonly #key: Buffer;

  constructor(secret: string | undefined) {
    this.#key = deriveKey('switchyard/session-forward/v1', secret);
  }

  sign(sid: string): string {
    return createHmac('sha256', this.#key).update(sid).digest('base64url');
  }

  verify(sid: string, value: string | undefined): boolean {
    if (value === undefined) return false;
    const expected = Buffer.from(this.sign(sid));
    const given = Buffer.from(value);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
