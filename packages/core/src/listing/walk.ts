/** One page of an upstream list call (`cursor` undefined = the first page). */
export type ListPage = (method: ListMethod, cursor: string | undefined) => Promise<Record<string, unknown>>;

export type ListMethod =
  | 'resources/list'
  | 'resources/templates/list'
  | 'tools/list'
  | 'prompts/list'
  | 'skills/list'
  | 'tasks/list';

/** How a walk ended: every page read, or cut off at a cursor seen before or at the page limit. */
export type WalkEnd = 'complete' | 'repeated-cursor' | 'page-limit';

/**
 * Walks every page of one upstream listing, handing each page to `onPage`. An upstream whose cursors
 * never end is cut off (DESIGN §11): at a cursor it already gave in this walk, or after `maxPages`
 * pages (`limits.maxPagesPerList`); what was read until then stays read.
 */
export async function walk(
  list: ListPage,
  method: ListMethod,
  onPage: (page: Record<string, unknown>) => void,
  maxPages: number,
): Promise<WalkEnd> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await list(method, cursor);
    onPage(page);
    cursor = typeof page.nextCursor === 'string' && page.nextCursor.length > 0 ? page.nextCursor : undefined;
    if (cursor === undefined) return 'complete';
    if (seen.has(cursor)) return 'repeated-cursor';
    seen.add(cursor);
  }
  return 'page-limit';
}
