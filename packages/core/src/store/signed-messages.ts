import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../derive-key.js';

/** One key per use: a signed message never passes as a signed value, nor the other way round. */
export const MESSAGE_LABEL = 'switchyard/store-message/v1';
export const VALUE_LABEL = 'switchyard/store-value/v1';
/** The MAC's length in base64url (HMAC-SHA256: 32 bytes). */
const MAC_CHARS = 43;

/**
 * Signs what replicas write to each other through the store, and opens what they read: an HMAC-SHA256
 * (key from `cursorSecret` and `label`) over where it goes (a channel, or a key) and the text, so whoever
 * can write to Redis but holds no replica's secret cannot speak for a replica (approve a held call,
 * announce one, set the pins) nor move a message or a value from one channel or key to another. Wire
 * form: `<mac>.<text>`.
 */
export class MessageSigner {
  readonly #key: Buffer;

  constructor(secret: string, label: string = MESSAGE_LABEL) {
    this.#key = deriveKey(label, secret);
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
