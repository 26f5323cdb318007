/**
 * The lists the bench enumerates: walking one to its end with explicit cursors (one raw request per page),
 * and what a correct enumeration is (exactly the expected items, each once, N per upstream, none
 * unavailable). A wrong walk throws, which fails the bench loudly.
 */
import { REQUEST_OPTIONS, type UpstreamSpec } from './harness.js';
import { msSince, type Requester, targetsOf } from './measure.js';

export type ListName = 'resources' | 'tools';

export const LIST_KINDS = {
  resources: { name: 'resources', method: 'resources/list', key: 'uri' },
  tools: { name: 'tools', method: 'tools/list', key: 'name' },
} as const;

export type ListKind = (typeof LIST_KINDS)[ListName];

/** The testkit upstream `name` serving `count` items of `list`, `pageSize` a page. */
export function listUpstream(
  list: ListName,
  name: string,
  count: number,
  pageSize: number,
  latencyMs: number,
) {
  const items = list === 'resources' ? { resources: count } : { resources: 0, tools: count };
  return { name, ...items, pageSize, latencyMs } satisfies UpstreamSpec;
}

/** The items of upstream `server` (`count` of `list`), as it lists them or as the gateway exposes them. */
export function itemsOf(list: ListName, server: string, count: number, viaGateway: boolean): string[] {
  const t = targetsOf(server, list === 'resources' ? count : 0, list === 'tools' ? count : 0, viaGateway);
  return list === 'resources' ? t.uris : t.tools;
}

/** Each item of `servers` (`count` of `list` each, as listed or as exposed) → the server that owns it. */
export function owned(
  list: ListName,
  servers: string | readonly string[],
  count: number,
  viaGateway = false,
) {
  const names = typeof servers === 'string' ? [servers] : servers;
  return new Map(names.flatMap((s) => itemsOf(list, s, count, viaGateway).map((i) => [i, s] as const)));
}

export async function walk(client: Requester, kind: ListKind) {
  const items: string[] = [];
  /** Names listed under `_meta["switchyard/unavailable"]` on any page (gateway only). */
  const unavailable: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  const start = process.hrtime.bigint();
  do {
    const page = await client.request(
      { method: kind.method, params: cursor ? { cursor } : {} },
      REQUEST_OPTIONS,
    );
    pages += 1;
    const listed = page[kind.name];
    if (!Array.isArray(listed)) throw new Error(`${kind.method}: a page without a '${kind.name}' array`);
    for (const item of listed as Record<string, unknown>[]) items.push(String(item[kind.key]));
    const missing = (page._meta as Record<string, unknown> | undefined)?.['switchyard/unavailable'];
    if (Array.isArray(missing)) unavailable.push(...missing.map(String));
    cursor = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
    if (pages > 1_000_000) throw new Error(`${kind.method} never ended (more than 1,000,000 pages)`);
  } while (cursor);
  return { ms: msSince(start), pages, items, unavailable };
}

export type Walk = Awaited<ReturnType<typeof walk>>;

/**
 * Throws (with numbers) unless `w` lists exactly the items of `owners` (item → its server), each once,
 * `perServer` of each server, none unavailable, in `pages` pages when given.
 */
export function checkWalk(
  what: string,
  w: Walk,
  owners: Map<string, string>,
  perServer: number,
  pages?: number,
) {
  const seen = new Set<string>();
  const counts = new Map<string, number>([...new Set(owners.values())].map((s) => [s, 0]));
  const foreign = w.items.filter((item) => !owners.has(item));
  let duplicates = 0;
  for (const item of w.items) {
    if (seen.has(item)) duplicates += 1;
    else if (owners.has(item)) counts.set(owners.get(item)!, counts.get(owners.get(item)!)! + 1);
    seen.add(item);
  }
  const short = [...counts].filter(([, n]) => n !== perServer);
  const problems = [
    w.items.length !== owners.size && `${w.items.length} items, expected exactly ${owners.size}`,
    duplicates > 0 && `${duplicates} listed twice`,
    foreign.length > 0 && `${foreign.length} not among the expected (e.g. ${foreign.slice(0, 3).join(', ')})`,
    short.length > 0 && `per-upstream counts off: ${short.map(([n, c]) => `${n}=${c}`).join(', ')}`,
    w.unavailable.length > 0 && `upstreams reported unavailable: ${w.unavailable.join(', ')}`,
    pages !== undefined && w.pages !== pages && `${w.pages} pages, expected ${pages}`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${what} is wrong (${w.pages} pages): ${problems.join('; ')}`);
}

/**
 * Lists `list` on upstream `server` directly and through the gateway fronting it (one walk each) and
 * checks them: exactly the upstream's `count` items, each once, and through the gateway the same items
 * exposed, in the same order. Returns both listings.
 */
export async function checkedListing(
  list: ListName,
  direct: Requester,
  viaGateway: Requester,
  server: string,
  count: number,
): Promise<{ items: string[]; exposed: string[] }> {
  const kind = LIST_KINDS[list];
  const listed = await walk(direct, kind);
  checkWalk(`${kind.method} of upstream ${server}`, listed, owned(list, server, count), count);
  const items = listed.items;
  const exposed = (await walk(viaGateway, kind)).items;
  const expected = items.map((item) => (list === 'resources' ? `${server}+${item}` : `${server}__${item}`));
  if (exposed.join('\n') !== expected.join('\n')) {
    throw new Error(
      `${kind.method} through the gateway does not match the upstream: upstream ${items.length} ${list} ` +
        `(first: ${items.slice(0, 3).join(', ')}), gateway ${exposed.length} (first: ` +
        `${exposed.slice(0, 3).join(', ')}); expected the ${count} of upstream ${server}, in the same order`,
    );
  }
  return { items, exposed };
}
