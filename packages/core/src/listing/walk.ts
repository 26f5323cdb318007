/** One page of an upstream list call (`cursor` undefined = the first page). */
export type ListPage = (method: ListMethod, cursor: string | undefined) => Promise<Record<string, unknown>>;

export type ListMethod =
  | 'resources/list'
  | 'resources/templates/list'
  | 'tools/list'
  | 'prompts/list'
  | 'skills/list'
  | 'tasks/list';

/** Guards against an upstream whose cursors never end. */
const MAX_PAGES = 10_000;

/** Walks every page of one upstream listing, handing each page to `onPage`. */
export async function walk(
  list: ListPage,
  method: ListMethod,
  onPage: (page: Record<string, unknown>) => void,
): Promise<void> {
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await list(method, cursor);
    onPage(page);
    cursor = typeof page.nextCursor === 'string' && page.nextCursor.length > 0 ? page.nextCursor : undefined;
    if (cursor === undefined) return;
  }
}
