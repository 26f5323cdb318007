import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** Opaque cursor: base64url of the decimal offset of the next page. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o${offset}`, 'utf8').toString('base64url');
}

/** Decodes a cursor made by {@link encodeCursor}; anything else throws a -32602 ProtocolError. */
export function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 32) throw invalidCursor();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^o(0|[1-9]\d{0,14})$/.exec(text);
  if (match?.[1] === undefined || encodeCursor(Number(match[1])) !== cursor) throw invalidCursor();
  return Number(match[1]);
}

function invalidCursor(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
}

export interface PageWindow {
  start: number;
  end: number;
  nextCursor?: string;
}

/**
 * The index window of one page over `total` items. `pageSize` 0 means everything in one page. An offset past
 * the end (the set shrank between pages) yields an empty last page.
 */
export function pageWindow(cursor: unknown, total: number, pageSize: number): PageWindow {
  const start = cursor === undefined ? 0 : Math.min(decodeCursor(cursor), total);
  const end = pageSize > 0 ? Math.min(start + pageSize, total) : total;
  return end < total ? { start, end, nextCursor: encodeCursor(end) } : { start, end };
}
