import { describe, expect, it } from 'vitest';
import { MAX_MERGED_CURSOR_LENGTH } from '../src/cursor.js';
import {
  advance,
  cursorDigest,
  MAX_UPSTREAM_CURSOR_LENGTH,
  type UpstreamPosition,
} from '../src/listing/page-guard.js';

/**
 * Runs a merged enumeration of one upstream the way the merged listing does, one `advance` per page:
 * `nextOf(cursor)` is the upstream's next cursor after the page read at `cursor`. Returns how many pages
 * were read and why it ended.
 */
function enumerate(nextOf: (cursor: string | undefined) => string | undefined, maxPages: number) {
  let position: UpstreamPosition | undefined;
  let pages = 0;
  for (;;) {
    pages += 1;
    const step = advance(position, nextOf(position?.cursor), maxPages);
    if (!step.position) return { pages, cut: step.cut };
    expect(step.cut).toBeUndefined();
    position = step.position;
    if (pages > 10_000) throw new Error('the enumeration never ended');
  }
}

/** Cursors c1, c2, … that cycle back to c1 after `length` cursors (c1 → … → c<length> → c1). */
const cycle = (length: number) => (cursor: string | undefined) =>
  cursor === undefined ? 'c1' : `c${(Number(cursor.slice(1)) % length) + 1}`;

describe('cursorDigest', () => {
  it('is a short, stable, URL-safe digest that tells cursors apart', () => {
    const d = cursorDigest('page-2');
    expect(d).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(cursorDigest('page-2')).toBe(d);
    expect(cursorDigest('page-3')).not.toBe(d);
    expect(cursorDigest('')).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(cursorDigest('x'.repeat(100_000))).toHaveLength(8);
  });
});

describe('advance', () => {
  it('has nothing to carry when the upstream has no more pages', () => {
    expect(advance(undefined, undefined, 10)).toEqual({});
    expect(advance({ cursor: 'a', pages: 3, seen: [] }, undefined, 10)).toEqual({});
    // Even at the page limit: the upstream ended by itself, it was not cut off.
    expect(advance({ cursor: 'a', pages: 9, seen: [] }, undefined, 10)).toEqual({});
  });

  it('counts pages and remembers the digests of the cursors already used', () => {
    const first = advance(undefined, 'a', 10);
    expect(first).toEqual({ position: { cursor: 'a', pages: 1, seen: [] } });
    const second = advance(first.position, 'b', 10);
    expect(second).toEqual({ position: { cursor: 'b', pages: 2, seen: [cursorDigest('a')] } });
    const third = advance(second.position, 'c', 10);
    expect(third.position?.seen).toEqual([cursorDigest('a'), cursorDigest('b')]);
  });

  it('keeps only the last four digests', () => {
    let position: UpstreamPosition | undefined;
    for (const next of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) position = advance(position, next, 100).position;
    expect(position).toEqual({ cursor: 'g', pages: 7, seen: ['c', 'd', 'e', 'f'].map(cursorDigest) });
  });

  // Regression: a 200,000-character cursor was carried, and the merged cursor holding it was refused.
  it('cuts off an upstream whose cursor is longer than the merged cursor carries, on any page', () => {
    const longest = 'x'.repeat(MAX_UPSTREAM_CURSOR_LENGTH);
    expect(MAX_UPSTREAM_CURSOR_LENGTH).toBeLessThan(MAX_MERGED_CURSOR_LENGTH / 4);
    expect(advance(undefined, longest, 10)).toEqual({ position: { cursor: longest, pages: 1, seen: [] } });
    for (const next of [`${longest}y`, 'z'.repeat(200_000)]) {
      expect(advance(undefined, next, 10)).toEqual({ cut: 'long-cursor' });
      expect(advance({ cursor: 'a', pages: 3, seen: [] }, next, 10)).toEqual({ cut: 'long-cursor' });
    }
  });

  it('cuts off an upstream that answers with the cursor it was just given', () => {
    expect(advance({ cursor: 'same', pages: 1, seen: [] }, 'same', 100)).toEqual({ cut: 'repeated-cursor' });
    expect(enumerate((cursor) => cursor ?? 'same', 100)).toEqual({ pages: 2, cut: 'repeated-cursor' });
  });

  it('cuts off cycles of up to four cursors as soon as a cursor comes back', () => {
    for (const length of [2, 3, 4]) {
      expect(enumerate(cycle(length), 100), `cycle of ${length}`).toEqual({
        pages: length + 1,
        cut: 'repeated-cursor',
      });
    }
  });

  it('ends a longer cycle at the page limit', () => {
    expect(enumerate(cycle(5), 100)).toEqual({ pages: 100, cut: 'page-limit' });
  });

  it('reads at most maxPages pages of an endless upstream', () => {
    let n = 0;
    const endless = () => `p${++n}`;
    expect(enumerate(endless, 1000)).toEqual({ pages: 1000, cut: 'page-limit' });
    n = 0;
    expect(enumerate(endless, 1)).toEqual({ pages: 1, cut: 'page-limit' });
  });

  it('reads every page of an upstream that ends within the limit', () => {
    const three = (cursor: string | undefined) =>
      cursor === undefined ? 'p2' : cursor === 'p2' ? 'p3' : undefined;
    expect(enumerate(three, 3)).toEqual({ pages: 3, cut: undefined });
    expect(enumerate(three, 2)).toEqual({ pages: 2, cut: 'page-limit' });
  });

  it('continues from a decoded position (as carried in a merged cursor)', () => {
    const carried: UpstreamPosition = { cursor: 'c3', pages: 3, seen: ['c1', 'c2'].map(cursorDigest) };
    expect(advance(carried, 'c1', 100)).toEqual({ cut: 'repeated-cursor' });
    expect(advance(carried, 'c4', 100)).toEqual({
      position: { cursor: 'c4', pages: 4, seen: ['c1', 'c2', 'c3'].map(cursorDigest) },
    });
    expect(advance(carried, 'c4', 4)).toEqual({ cut: 'page-limit' });
  });
});
