import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../derive-key.js';

const LABEL = 'switchyard/store-message/v1';
/** The MAC's length in base64url (HMAC-SHA256: 32 bytes). */
const MAC_CHARS = 43;

/**
 * Signs what replicas publish to each other through the store, and opens what they receive: an
 * HMAC-SHA256 (key from `cursorSecret`) over the channel and the message, so whoever can write to Redis
 * but holds no replica's secret cannot speak for a replica (approve a held call, announce one, move a
 * pin lock), nor move a message from one channel to another. Wire form: `<mac>.<message>`.
 */
export class MessageSigner {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = deriveKey(LABEL, secret);
  }

  sign(channel: string, message: string): string {
    return `${this.#mac(channel, message).toString('base64url')}.${message}`;
  }

  /** The message a replica signed for `channel`, or undefined for anything else. */
  open(channel: string, signed: string): string | undefined {
    if (signed.length <= MAC_CHARS || signed[MAC_CHARS] !== '.') return undefined;
    // The MAC's text itself is compared: base64url decoding would take other texts for the same bytes.
    const given = Buffer.from(signed.slice(0, MAC_CHARS), 'latin1');
    const message = signed.slice(MAC_CHARS + 1);
    const expected = Buffer.from(this.#mac(channel, message).toString('base64url'), 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected) ? message : undefined;
  }

  #mac(channel: string, message: string): Buffer {
    // The channel's length first: no (channel, message) pair signs the same bytes as another.
    return createHmac('sha256', this.#key).update(`${channel.length}:${channel}`).update(message).digest();
  }
}
