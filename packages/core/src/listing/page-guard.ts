import { createHash } from 'node:crypto';

/** Where one upstream stands in a merged enumeration (carried, signed, in the merged cursor). */
export interface UpstreamPosition {
  /** Its own cursor for the next page. */
  cursor: string;
  /** Pages of it read so far in this enumeration. */
  pages: number;
  /** Short digests of the cursors it gave before this one (the last few). */
  seen: string[];
}

/** How many earlier cursors a position remembers: cycles up to this length end at once. */
const REMEMBERED = 4;

/**
 * The longest cursor of an upstream's own that a merged cursor carries: a longer one ends that upstream's
 * enumeration, so no upstream can make the merged cursor too long to be taken back (DESIGN §5, §11).
 */
export const MAX_UPSTREAM_CURSOR_LENGTH = 8_192;

/**
 * Why an upstream was cut off from an enumeration: its cursor repeated, it reached the page limit, its
 * cursor is longer than {@link MAX_UPSTREAM_CURSOR_LENGTH}, or the merged cursor had no room left for it
 * (many upstreams' long cursors together).
 */
export type CutOff = 'repeated-cursor' | 'page-limit' | 'long-cursor' | 'cursor-room';

/** A short digest of a cursor (cursors may be long; the merged cursor carries only their digests). */
export function cursorDigest(cursor: string): string {
  return createHash('sha256').update(cursor).digest().subarray(0, 6).toString('base64url');
}

/**
 * The position after one more page of an upstream (`previous` undefined: that was its first page), or why
 * it is cut off (DESIGN §11): its next cursor is too long to carry, repeats one it gave recently, or it has
 * reached `maxPages`. Undefined `next` means it has no more pages.
 */
export function advance(
  previous: UpstreamPosition | undefined,
  next: string | undefined,
  maxPages: number,
): { position?: UpstreamPosition; cut?: CutOff } {
  if (next === undefined) return {};
  if (next.length > MAX_UPSTREAM_CURSOR_LENGTH) return { cut: 'long-cursor' };
  const pages = (previous?.pages ?? 0) + 1;
  const seen = previous ? [...previous.seen, cursorDigest(previous.cursor)].slice(-REMEMBERED) : [];
  if (seen.includes(cursorDigest(next))) return { cut: 'repeated-cursor' };
  if (pages >= maxPages) return { cut: 'page-limit' };
  return { position: { cursor: next, pages, seen } };
}
