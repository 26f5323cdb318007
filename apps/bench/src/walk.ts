/** Walking a list to its end with explicit cursors, one raw request per page (no client-side cache). */
import type { Client } from '@modelcontextprotocol/client';
import { REQUEST_OPTIONS } from './client.js';
import type { ListKind } from './list-kinds.js';
import { msSince } from './stats.js';

export interface Walk {
  ms: number;
  pages: number;
  /** Each item's identity (`kind.key`), in listing order. */
  items: string[];
  /** Names listed under `_meta["switchyard/unavailable"]` on any page (gateway only). */
  unavailable: string[];
}

const MAX_PAGES = 1_000_000;

export async function walk(client: Client, kind: ListKind): Promise<Walk> {
  const items: string[] = [];
  const unavailable: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  const start = process.hrtime.bigint();
  do {
    const page = (await client.request(
      { method: kind.method, params: cursor ? { cursor } : {} },
      REQUEST_OPTIONS,
    )) as unknown as Record<string, unknown>;
    pages += 1;
    const listed = page[kind.field];
    if (!Array.isArray(listed)) throw new Error(`${kind.method}: a page without a '${kind.field}' array`);
    for (const item of listed as Record<string, unknown>[]) items.push(String(item[kind.key]));
    const missing = (page._meta as Record<string, unknown> | undefined)?.['switchyard/unavailable'];
    if (Array.isArray(missing)) unavailable.push(...missing.map(String));
    cursor = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
    if (pages > MAX_PAGES) throw new Error(`${kind.method} never ended (more than ${MAX_PAGES} pages)`);
  } while (cursor);
  return { ms: msSince(start), pages, items, unavailable };
}
