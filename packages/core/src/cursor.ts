import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from './derive-key.js';
import { GatewayError } from './errors.js';
import type { UpstreamPosition } from './listing/page-guard.js';

/**
 * The state of a merged listing: for every upstream that still has pages, where it stands (its own next
 * cursor, pages read, digests of its recent cursors). Upstreams absent from the map are finished (or were
 * unavailable or cut off, and reported as such). `scope` is the cacheScope the enumeration started with.
 */
export interface MergedCursorState {
  positions: Record<string, UpstreamPosition>;
  scope?: string;
}

/** The wire form of a position: `[cursor, pages, ...digests]`. */
type EncodedPosition = [string, number, ...string[]];

const VERSION = 2;
const MAC_BYTES = 12;
/** The longest merged cursor decode takes, and so the longest encode makes. */
export const MAX_MERGED_CURSOR_LENGTH = 65_536;
/** The base64url length of `bytes` bytes (unpadded). */
const base64Length = (bytes: number) => Math.ceil((bytes * 4) / 3);
/** What a cursor holds besides its body: the dot and the MAC. */
const MAC_LENGTH = 1 + base64Length(MAC_BYTES);

/**
 * Encodes and verifies the opaque, stateless downstream cursor (DESIGN §5). The cursor carries every
 * upstream's own cursor and an HMAC, keyed by the gateway's upstream set (plus an optional secret),
 * so any gateway instance with the same config can continue it and an altered cursor is refused.
 */
export class MergedCursorCodec {
  readonly #key: Buffer;

  constructor(keyMaterial: string) {
    this.#key = deriveKey('switchyard/cursor/v1', keyMaterial);
  }

  encode(kind: string, state: MergedCursorState): string {
    const body = Buffer.from(wireText(kind, state)).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  /**
   * `state` encoded within {@link MAX_MERGED_CURSOR_LENGTH}, so the gateway never hands out a cursor it
   * would refuse: while the cursor would be longer, the position that takes the most room is left out
   * (named in `dropped`, in that order; their enumerations end there). No `cursor` when none is left.
   */
  encodeWithin(kind: string, state: MergedCursorState): { cursor?: string; dropped: string[] } {
    const kept = new Map(Object.entries(state.positions));
    // What each position adds to the wire text: `"name":[…],` (the last one without its comma).
    const room = new Map(
      [...kept].map(([name, p]) => [name, Buffer.byteLength(JSON.stringify({ [name]: encodePosition(p) }))]),
    );
    // The largest first; among equals, the later in config order.
    const largest = [...room.keys()].reverse().sort((a, b) => room.get(b)! - room.get(a)!);
    let bytes = Buffer.byteLength(wireText(kind, { ...state, positions: {} })) - 1;
    for (const size of room.values()) bytes += size - 1;
    const dropped: string[] = [];
    for (;;) {
      if (kept.size === 0) return { dropped };
      if (base64Length(bytes) + MAC_LENGTH <= MAX_MERGED_CURSOR_LENGTH) {
        const cursor = this.encode(kind, { ...state, positions: Object.fromEntries(kept) });
        // The count is exact; the cursor is measured anyway before it is handed out.
        if (cursor.length <= MAX_MERGED_CURSOR_LENGTH) return { cursor, dropped };
      }
      const name = largest.shift()!;
      kept.delete(name);
      dropped.push(name);
      bytes -= room.get(name)! - 1;
    }
  }

  /** Throws GatewayError -32602 (invalid_cursor) for anything that is not a cursor this codec made for `kind`. */
  decode(kind: string, cursor: unknown): MergedCursorState {
    if (typeof cursor !== 'string' || cursor.length > MAX_MERGED_CURSOR_LENGTH)
      throw GatewayError.invalidCursor();
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
    const p = parsed as { v?: unknown; k?: unknown; s?: unknown; c?: unknown };
    if (p.v !== VERSION || p.k !== kind || typeof p.s !== 'object' || p.s === null || Array.isArray(p.s)) {
      throw GatewayError.invalidCursor();
    }
    if (p.c !== undefined && typeof p.c !== 'string') throw GatewayError.invalidCursor();
    const positions: Record<string, UpstreamPosition> = {};
    for (const [name, value] of Object.entries(p.s)) positions[name] = decodePosition(value);
    return p.c === undefined ? { positions } : { positions, scope: p.c };
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest().subarray(0, MAC_BYTES).toString('base64url');
  }
}

/** The JSON text a cursor's body encodes. */
function wireText(kind: string, state: MergedCursorState): string {
  const s: Record<string, EncodedPosition> = {};
  for (const [name, p] of Object.entries(state.positions)) s[name] = encodePosition(p);
  const wire =
    state.scope === undefined ? { v: VERSION, k: kind, s } : { v: VERSION, k: kind, s, c: state.scope };
  return JSON.stringify(wire);
}

function encodePosition(p: UpstreamPosition): EncodedPosition {
  return [p.cursor, p.pages, ...p.seen];
}

function decodePosition(value: unknown): UpstreamPosition {
  if (!Array.isArray(value) || value.length < 2) throw GatewayError.invalidCursor();
  const [cursor, pages, ...seen] = value as unknown[];
  if (typeof cursor !== 'string' || !Number.isInteger(pages) || (pages as number) < 0) {
    throw GatewayError.invalidCursor();
  }
  if (!seen.every((d) => typeof d === 'string')) throw GatewayError.invalidCursor();
  return { cursor, pages: pages as number, seen: seen as string[] };
}
