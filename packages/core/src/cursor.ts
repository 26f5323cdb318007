import { createHmac, timingSafeEqual } from 'node:crypto';
import { GatewayError } from './errors.js';

/**
 * The state of a merged listing: for every upstream that still has pages, its own next cursor.
 * Upstreams absent from the map are finished (or were unavailable and reported as such).
 */
export type MergedCursorState = Record<string, string>;

const VERSION = 1;
const MAC_BYTES = 12;

/**
 * Encodes and verifies the opaque, stateless downstream cursor (DESIGN §5). The cursor carries every
 * upstream's own cursor and an HMAC, keyed by the gateway's upstream set (plus an optional secret),
 * so any gateway instance with the same config can continue it and an altered cursor is refused.
 */
export class MergedCursorCodec {
  readonly #key: Buffer;

  constructor(keyMaterial: string) {
    this.#key = createHmac('sha256', 'switchyard/cursor/v1').update(keyMaterial).digest();
  }

  encode(kind: string, state: MergedCursorState): string {
    const body = Buffer.from(JSON.stringify({ v: VERSION, k: kind, s: state })).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  /** Throws GatewayError -32602 (invalid_cursor) for anything that is not a cursor this codec made for `kind`. */
  decode(kind: string, cursor: unknown): MergedCursorState {
    if (typeof cursor !== 'string' || cursor.length > 65_536) throw GatewayError.invalidCursor();
    const dot = cursor.lastIndexOf('.');
    if (dot <= 0) throw GatewayError.invalidCursor();
    const body = cursor.slice(0, dot);
    // Compare the MAC text itself: base64url decoding ignores stray characters, the text does not.
    const mac = Buffer.from(cursor.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.#mac(body), 'utf8');
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw GatewayError.invalidCursor();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw GatewayError.invalidCursor();
    }
    if (typeof parsed !== 'object' || parsed === null) throw GatewayError.invalidCursor();
    const p = parsed as { v?: unknown; k?: unknown; s?: unknown };
    if (p.v !== VERSION || p.k !== kind || typeof p.s !== 'object' || p.s === null || Array.isArray(p.s)) {
      throw GatewayError.invalidCursor();
    }
    const state: MergedCursorState = {};
    for (const [name, value] of Object.entries(p.s)) {
      if (typeof value !== 'string') throw GatewayError.invalidCursor();
      state[name] = value;
    }
    return state;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest().subarray(0, MAC_BYTES).toString('base64url');
  }
}
