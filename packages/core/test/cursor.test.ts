import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_MERGED_CURSOR_LENGTH, MergedCursorCodec, type MergedCursorState } from '../src/cursor.js';
import { GatewayError } from '../src/errors.js';
import { advance, cursorDigest } from '../src/listing/page-guard.js';

const KEY = '[[["a",true],["b",false]],""]';

/**
 * Signs an arbitrary body the way the codec does (verified against encode() below), so tests can build
 * correctly signed cursors whose *content* is wrong and check that decode still refuses them.
 */
function sign(keyMaterial: string, payload: string): string {
  const key = createHmac('sha256', 'switchyard/cursor/v1').update(keyMaterial).digest();
  const body = Buffer.from(payload).toString('base64url');
  const mac = createHmac('sha256', key).update(body).digest().subarray(0, 12).toString('base64url');
  return `${body}.${mac}`;
}

function expectInvalid(decode: () => unknown): void {
  let caught: unknown;
  try {
    decode();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(GatewayError);
  const error = caught as GatewayError;
  expect(error.code).toBe(-32602);
  expect(error.reason).toBe('invalid_cursor');
}

/** Replaces the character at `index` with a different base64url character. */
function flip(text: string, index: number): string {
  const c = text[index];
  return text.slice(0, index) + (c === 'A' ? 'B' : 'A') + text.slice(index + 1);
}

/** A state whose upstreams are each on their second page at `cursor`. */
function st(cursors: Record<string, string>): MergedCursorState {
  const positions = Object.fromEntries(
    Object.entries(cursors).map(([name, cursor]) => [name, { cursor, pages: 1, seen: [] as string[] }]),
  );
  return { positions };
}

describe('MergedCursorCodec', () => {
  const codec = new MergedCursorCodec(KEY);

  it('round-trips a state and produces URL-safe text', () => {
    const state = { ...st({ a: 'opaque-1', b: 'with spaces/and+plus=', 'c-d': '' }), scope: 'public' };
    const cursor = codec.encode('r', state);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode('r', cursor)).toEqual(state);
    expect(codec.decode('r', codec.encode('r', st({})))).toEqual(st({}));
  });

  it('carries each position’s pages and cursor digests compactly, and the scope only when set', () => {
    const seen = ['p1', 'p2', 'p3', 'p4'].map(cursorDigest);
    const positions = { a: { cursor: 'p5', pages: 5, seen }, b: { cursor: 'q', pages: 0, seen: [] } };
    for (const state of [{ positions }, { positions, scope: 'private' }]) {
      const cursor = codec.encode('r', state);
      const decoded = codec.decode('r', cursor);
      expect(decoded).toEqual(state);
      expect('scope' in decoded).toBe('scope' in state);
      const wire = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8'));
      expect(wire.s).toEqual({ a: ['p5', 5, ...seen], b: ['q', 0] });
    }
    // The decoded position goes on guarding the enumeration: a cursor it gave before is recognised.
    const { a } = codec.decode('r', codec.encode('r', { positions })).positions;
    expect(advance(a, 'p2', 100)).toEqual({ cut: 'repeated-cursor' });
    expect(advance(a, 'p6', 6)).toEqual({ cut: 'page-limit' });
  });

  it('is stateless: another codec with the same key material continues the cursor', () => {
    const cursor = codec.encode('t', st({ a: 'x' }));
    expect(new MergedCursorCodec(KEY).decode('t', cursor)).toEqual(st({ a: 'x' }));
  });

  it('the test signer matches the codec (so the forged cursors below are correctly signed)', () => {
    const payload = JSON.stringify({ v: 2, k: 'r', s: { a: ['x', 1] } });
    expect(sign(KEY, payload)).toBe(codec.encode('r', st({ a: 'x' })));
    expect(codec.decode('r', sign(KEY, payload))).toEqual(st({ a: 'x' }));
  });

  it('rejects non-string and garbage input', () => {
    for (const bad of [undefined, null, 42, {}, ['a.b'], true]) expectInvalid(() => codec.decode('r', bad));
    for (const bad of ['', '.', 'abc', '.abc', 'abc.', 'not a cursor', '....', '🙂.🙂']) {
      expectInvalid(() => codec.decode('r', bad));
    }
  });

  it('rejects truncated cursors', () => {
    const cursor = codec.encode('r', st({ a: 'page-2', b: 'page-3' }));
    for (const cut of [1, 2, 5, 16, cursor.length - 20, cursor.length - 1]) {
      expectInvalid(() => codec.decode('r', cursor.slice(0, cut)));
    }
    expectInvalid(() => codec.decode('r', cursor.slice(1)));
  });

  it('rejects an altered body', () => {
    const cursor = codec.encode('r', st({ a: 'page-2' }));
    const [body, mac] = cursor.split('.') as [string, string];
    for (let i = 0; i < body.length; i += 3)
      expectInvalid(() => codec.decode('r', `${flip(body, i)}.${mac}`));
    // A meaningful forgery: a different state re-encoded, keeping the old MAC.
    const forged = Buffer.from(JSON.stringify({ v: 2, k: 'r', s: { a: ['page-9', 1] } })).toString(
      'base64url',
    );
    expectInvalid(() => codec.decode('r', `${forged}.${mac}`));
  });

  it('rejects an altered MAC', () => {
    const cursor = codec.encode('r', st({ a: 'page-2' }));
    const [body, mac] = cursor.split('.') as [string, string];
    for (let i = 0; i < mac.length; i++) expectInvalid(() => codec.decode('r', `${body}.${flip(mac, i)}`));
    expectInvalid(() => codec.decode('r', `${body}.${mac.slice(0, -1)}`));
    expectInvalid(() => codec.decode('r', `${body}.`));
    expectInvalid(() => codec.decode('r', `${body}.${mac}.${mac}`));
  });

  // Regression: a lenient base64url decode of the MAC let appended characters ("A", "=", "!", "\n") through.
  it('rejects a MAC with characters appended', () => {
    const cursor = codec.encode('r', st({ a: 'page-2' }));
    for (const suffix of ['A', '=', '!', '\n']) expectInvalid(() => codec.decode('r', cursor + suffix));
  });

  it('rejects a cursor made for another kind', () => {
    const cursor = codec.encode('r', st({ a: 'x' }));
    expectInvalid(() => codec.decode('t', cursor));
    expect(codec.decode('r', cursor)).toEqual(st({ a: 'x' }));
  });

  it('rejects a cursor made with other key material (another upstream set or secret)', () => {
    const other = new MergedCursorCodec('[[["a",true]],""]');
    expectInvalid(() => codec.decode('r', other.encode('r', st({ a: 'x' }))));
    expectInvalid(() => other.decode('r', codec.encode('r', st({ a: 'x' }))));
  });

  it('rejects correctly signed cursors whose content is malformed', () => {
    const payloads = [
      '{not json',
      JSON.stringify({ v: 1, k: 'r', s: {} }),
      JSON.stringify({ k: 'r', s: {} }),
      JSON.stringify({ v: 2, k: 'r' }),
      JSON.stringify({ v: 2, k: 'r', s: null }),
      JSON.stringify({ v: 2, k: 'r', s: ['x'] }),
      JSON.stringify({ v: 2, k: 'r', s: 'x' }),
      JSON.stringify({ v: 2, k: 'r', s: { a: 1 } }),
      JSON.stringify({ v: 2, k: 'r', s: { a: 'ok' } }),
      JSON.stringify({ v: 2, k: 'r', s: { a: ['ok'] } }),
      JSON.stringify({ v: 2, k: 'r', s: { a: ['ok', -1] } }),
      JSON.stringify({ v: 2, k: 'r', s: { a: ['ok', 1.5] } }),
      JSON.stringify({ v: 2, k: 'r', s: { a: ['ok', 1, 7] } }),
      JSON.stringify({ v: 2, k: 'r', s: { a: ['ok', 1], b: null } }),
      JSON.stringify({ v: 2, k: 'r', s: { a: { nested: 'x' } } }),
      JSON.stringify({ v: 2, k: 'r', s: {}, c: 5 }),
      JSON.stringify([1, 'r', {}]),
      JSON.stringify('r'),
      JSON.stringify(1),
    ];
    for (const payload of payloads) expectInvalid(() => codec.decode('r', sign(KEY, payload)));
  });

  // Regression: a signed `null` body used to throw a TypeError (-32603 through the gateway) instead of invalid_cursor.
  it('rejects a correctly signed cursor whose body is JSON null', () => {
    expectInvalid(() => codec.decode('r', sign(KEY, 'null')));
  });

  it('rejects oversized input even when correctly signed', () => {
    const small = codec.encode('r', st({ a: 'x'.repeat(1000) }));
    expect(codec.decode('r', small)).toEqual(st({ a: 'x'.repeat(1000) }));
    const huge = codec.encode('r', st({ a: 'x'.repeat(60_000) }));
    expect(huge.length).toBeGreaterThan(65_536);
    expectInvalid(() => codec.decode('r', huge));
    expectInvalid(() => codec.decode('r', 'A'.repeat(100_000)));
  });

  describe('encodeWithin', () => {
    it('encodes a state that fits exactly as encode does, leaving nothing out', () => {
      const state = { ...st({ a: 'x'.repeat(1000), b: 'y' }), scope: 'private' };
      expect(codec.encodeWithin('r', state)).toEqual({ cursor: codec.encode('r', state), dropped: [] });
      expect(codec.encodeWithin('r', st({}))).toEqual({ dropped: [] });
    });

    // Regression: cursors each short enough made a merged cursor over the limit, which decode then refused
    // (page 2 of the listing was -32602 invalid_cursor).
    it('never makes a cursor decode refuses: it leaves out the largest positions until the rest fits', () => {
      const cursors = {
        a: 'a'.repeat(6_000),
        b: 'b'.repeat(11_000),
        c: 'c',
        d: 'd'.repeat(11_000),
        e: 'e'.repeat(11_000),
        f: 'f'.repeat(11_000),
      };
      expect(codec.encode('r', st(cursors)).length).toBeGreaterThan(MAX_MERGED_CURSOR_LENGTH);
      const { cursor, dropped } = codec.encodeWithin('r', st(cursors));
      // Among equals the later in config order goes first; just enough is left out.
      expect(dropped).toEqual(['f']);
      expect(cursor!.length).toBeLessThanOrEqual(MAX_MERGED_CURSOR_LENGTH);
      const { f: _f, ...kept } = cursors;
      expect(codec.decode('r', cursor)).toEqual(st(kept));
    });

    it('counts what a cursor takes on the wire (escaped and multi-byte characters), not its length', () => {
      // 8,000 characters each, but 6 bytes (`\u0001`) or 3 bytes (`€`) each in the JSON the cursor encodes.
      const cursors = { a: '\u0001'.repeat(8_000), b: '€'.repeat(8_000), c: 'plain' };
      const { cursor, dropped } = codec.encodeWithin('r', { ...st(cursors), scope: 'public' });
      expect(dropped).toEqual(['a']);
      expect(cursor!.length).toBeLessThanOrEqual(MAX_MERGED_CURSOR_LENGTH);
      expect(codec.decode('r', cursor)).toEqual({ ...st({ b: cursors.b, c: 'plain' }), scope: 'public' });
    });

    it('is exact at the limit: a cursor of exactly the limit is kept, one character more is not', () => {
      const at = (length: number) => codec.encode('r', st({ a: 'x'.repeat(length) })).length;
      // base64 grows by 4 characters per 3 bytes: find a cursor length landing on the limit exactly.
      let n = Math.floor(((MAX_MERGED_CURSOR_LENGTH - 17) * 3) / 4) - 100;
      while (at(n) < MAX_MERGED_CURSOR_LENGTH) n += 1;
      expect(at(n)).toBe(MAX_MERGED_CURSOR_LENGTH);
      expect(codec.encodeWithin('r', st({ a: 'x'.repeat(n) })).dropped).toEqual([]);
      expect(codec.encodeWithin('r', st({ a: 'x'.repeat(n + 1) }))).toEqual({ dropped: ['a'] });
    });

    it('leaves out every position when none fits, so the listing ends', () => {
      expect(codec.encodeWithin('r', st({ a: 'x'.repeat(100_000), b: 'y'.repeat(100_000) }))).toEqual({
        dropped: ['b', 'a'],
      });
    });
  });
});
