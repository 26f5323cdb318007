import type { NameIndex } from '../routing/name-index.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { offered, type UpstreamFeature } from '../upstream/pool.js';

/** How many items each upstream exposes, by kind. */
export interface InventoryCounts {
  tools: number;
  prompts: number;
  resources: number;
  templates: number;
}

const LISTS: readonly {
  key: keyof InventoryCounts;
  method: string;
  field: string;
  feature: UpstreamFeature;
}[] = [
  { key: 'tools', method: 'tools/list', field: 'tools', feature: 'tools' },
  { key: 'prompts', method: 'prompts/list', field: 'prompts', feature: 'prompts' },
  { key: 'resources', method: 'resources/list', field: 'resources', feature: 'resources' },
  { key: 'templates', method: 'resources/templates/list', field: 'resourceTemplates', feature: 'resources' },
];

export interface InventoryOptions {
  signal?: AbortSignal;
  /** Pages read per upstream and list at most (default 100). */
  maxPages?: number;
}

/**
 * What one connected upstream exposes, counted by the gateway itself: its lists walked page by page
 * as the gateway's own calls (no caller: no request plugin sees them, and upstream-call layers treat them
 * like the gateway's indexing), tools and prompts counted only when the server's curation exposes them.
 * The operator's view (e.g. the startup banner), never a caller's.
 */
export async function countInventory(
  upstream: UpstreamConnection,
  index: { tools: NameIndex; prompts: NameIndex },
  options: InventoryOptions = {},
): Promise<InventoryCounts> {
  const counts: InventoryCounts = { tools: 0, prompts: 0, resources: 0, templates: 0 };
  await Promise.all(
    LISTS.filter((list) => offered(upstream.capabilities, list.feature)).map(async (list) => {
      let cursor: string | undefined;
      for (let page = 0; page < (options.maxPages ?? 100); page++) {
        const result = await upstream.request(list.method, cursor === undefined ? {} : { cursor }, {
          signal: options.signal,
        });
        const items = Array.isArray(result[list.field]) ? (result[list.field] as unknown[]) : [];
        const named = list.key === 'tools' || list.key === 'prompts' ? index[list.key] : undefined;
        for (const item of items) {
          const name = (item as { name?: unknown } | null)?.name;
          if (!named || (typeof name === 'string' && named.expose(upstream.name, name) !== undefined)) {
            counts[list.key] += 1;
          }
        }
        const next = result.nextCursor;
        if (typeof next !== 'string' || next.length === 0) break;
        cursor = next;
      }
    }),
  );
  return counts;
}
