import type { UpstreamConnection } from '../upstream/connection.js';
import type { ListPage } from './walk.js';

/**
 * One round of listing an upstream shared by every walker of it: each page (method and cursor) is asked of
 * the upstream once, and a second walker of the same list is handed the same answer. For one refresh
 * round only (a connection's first listing, or one `list_changed`): a later round asks afresh.
 */
export function sharedPages(list: ListPage): ListPage {
  const asked = new Map<string, Promise<Record<string, unknown>>>();
  return (method, cursor) => {
    // A cursor is the upstream's string: keyed in a Map, `__proto__` is just a key.
    const key = cursor === undefined ? method : `${method}\n${cursor}`;
    let page = asked.get(key);
    if (page === undefined) {
      page = list(method, cursor);
      asked.set(key, page);
    }
    return page;
  };
}

/** `u`'s pages, each asked of it directly. */
export function pagesOf(u: Pick<UpstreamConnection, 'request'>): ListPage {
  return (method, cursor) => u.request(method, cursor === undefined ? {} : { cursor });
}
