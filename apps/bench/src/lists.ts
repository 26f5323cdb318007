/**
 * The lists the bench enumerates, each described once (which method and result field, what identifies an
 * item, the testkit upstream that serves N of them, and exactly which items a full enumeration must return,
 * directly and through the gateway, which exposes `<server>+<uri>` and `<server>__<tool>`); walking a list
 * to its end with explicit cursors, one raw request per page (no client-side cache); and what a correct
 * enumeration is: exactly the expected items, each once, and (through the gateway) N per upstream with
 * none reported unavailable. A wrong walk throws, which fails the bench loudly.
 */
import { REQUEST_OPTIONS } from './client.js';
import type { Requester } from './requests.js';
import type { UpstreamSpec } from './services.js';
import { msSince } from './stats.js';

export type ListName = 'resources' | 'tools';

export interface ListKind {
  name: ListName;
  method: 'resources/list' | 'tools/list';
  /** The result field holding the items. */
  field: 'resources' | 'tools';
  /** The field naming an item (a resource's uri, a tool's name). */
  key: 'uri' | 'name';
  /** The testkit upstream `server` serving `count` of these items, `pageSize` a page (0 = one page). */
  upstream(server: string, count: number, pageSize: number, latencyMs: number): UpstreamSpec;
  /** Item `i` of upstream `server` as the upstream lists it. */
  direct(server: string, i: number): string;
  /** Upstream `server`'s `item` as the gateway exposes it. */
  expose(server: string, item: string): string;
}

export const RESOURCES: ListKind = {
  name: 'resources',
  method: 'resources/list',
  field: 'resources',
  key: 'uri',
  upstream: (name, count, pageSize, latencyMs) => ({ name, resources: count, pageSize, latencyMs }),
  direct: (server, i) => `test://${server}/r/${i}`,
  expose: (server, uri) => `${server}+${uri}`,
};

/** Generated testkit echo tools `tool_0 … tool_{N-1}` (and no resources), exposed as `<server>__tool_<i>`. */
export const TOOLS: ListKind = {
  name: 'tools',
  method: 'tools/list',
  field: 'tools',
  key: 'name',
  upstream: (name, count, pageSize, latencyMs) => ({ name, resources: 0, tools: count, pageSize, latencyMs }),
  direct: (_server, i) => `tool_${i}`,
  expose: (server, name) => `${server}__${name}`,
};

export const LIST_KINDS: Record<ListName, ListKind> = { resources: RESOURCES, tools: TOOLS };

export interface Walk {
  ms: number;
  pages: number;
  /** Each item's identity (`kind.key`), in listing order. */
  items: string[];
  /** Names listed under `_meta["switchyard/unavailable"]` on any page (gateway only). */
  unavailable: string[];
}

const MAX_PAGES = 1_000_000;

export async function walk(client: Requester, kind: ListKind): Promise<Walk> {
  const items: string[] = [];
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

export interface ExpectedEnumeration {
  kind: ListKind;
  servers: readonly string[];
  perUpstream: number;
  /** Pages of one direct enumeration of a single upstream. */
  directPages: number;
  direct: Map<string, Set<string>>;
  /** Exposed item → owning server, K × N entries. */
  exposed: Map<string, string>;
}

export function expectedEnumeration(
  kind: ListKind,
  servers: readonly string[],
  perUpstream: number,
  pageSize: number,
): ExpectedEnumeration {
  const items = Array.from({ length: perUpstream }, (_, i) => i);
  return {
    kind,
    servers,
    perUpstream,
    directPages: Math.max(1, pageSize > 0 ? Math.ceil(perUpstream / pageSize) : 1),
    direct: new Map(servers.map((s) => [s, new Set(items.map((i) => kind.direct(s, i)))])),
    exposed: new Map(
      servers.flatMap((s) => items.map((i): [string, string] => [kind.expose(s, kind.direct(s, i)), s])),
    ),
  };
}

/** Throws (with numbers) unless `w` is exactly one full enumeration of upstream `server`. */
export function checkDirect(w: Walk, server: string, e: ExpectedEnumeration): void {
  const expected = e.direct.get(server)!;
  const unique = new Set(w.items).size;
  const foreign = w.items.filter((item) => !expected.has(item)).length;
  const noun = e.kind.field;
  if (w.items.length !== e.perUpstream || unique !== w.items.length || foreign > 0) {
    throw new Error(
      `direct ${e.kind.method} of ${server}: ${w.items.length} ${noun} (${unique} unique, ${foreign} ` +
        `unexpected), expected exactly ${e.perUpstream}`,
    );
  }
  if (w.pages !== e.directPages) {
    throw new Error(`direct ${e.kind.method} of ${server}: ${w.pages} pages, expected ${e.directPages}`);
  }
}

/** Throws unless the merged walk has exactly the K × N expected exposed items, N per upstream, none unavailable. */
export function checkGateway(w: Walk, e: ExpectedEnumeration): void {
  const total = e.exposed.size;
  const seen = new Set<string>();
  const perUpstream = new Map<string, number>(e.servers.map((s) => [s, 0]));
  let foreign = 0;
  let duplicates = 0;
  for (const item of w.items) {
    const server = e.exposed.get(item);
    if (server === undefined) foreign += 1;
    else if (seen.has(item)) duplicates += 1;
    else {
      seen.add(item);
      perUpstream.set(server, perUpstream.get(server)! + 1);
    }
  }
  const noun = e.kind.field;
  const short = [...perUpstream].filter(([, n]) => n !== e.perUpstream);
  const problems: string[] = [];
  if (w.items.length !== total) problems.push(`${w.items.length} ${noun}, expected exactly ${total}`);
  if (duplicates > 0) problems.push(`${duplicates} listed twice`);
  if (foreign > 0) {
    const sample = w.items.filter((item) => !e.exposed.has(item)).slice(0, 3);
    problems.push(`${foreign} not among the expected exposed ${noun} (e.g. ${sample.join(', ')})`);
  }
  if (short.length > 0)
    problems.push(`per-upstream counts off: ${short.map(([n, c]) => `${n}=${c}`).join(', ')}`);
  if (w.unavailable.length > 0) problems.push(`upstreams reported unavailable: ${w.unavailable.join(', ')}`);
  if (problems.length > 0) {
    throw new Error(
      `gateway ${e.kind.method} enumeration is wrong (${w.pages} pages): ${problems.join('; ')}`,
    );
  }
}

/**
 * Lists `kind` on upstream `server` directly and through the gateway fronting it (one walk each) and checks
 * them against each other: exactly the upstream's `count` items, each once, and through the gateway the
 * same items exposed (`<server>+<uri>`, `<server>__<tool>`), in the same order. Returns both listings.
 */
export async function checkedListing(
  kind: ListKind,
  direct: Requester,
  viaGateway: Requester,
  server: string,
  count: number,
): Promise<{ items: string[]; exposed: string[] }> {
  const items = (await walk(direct, kind)).items;
  const exposed = (await walk(viaGateway, kind)).items;
  const own = new Set(Array.from({ length: count }, (_, i) => kind.direct(server, i)));
  const expected = items.map((item) => kind.expose(server, item));
  if (
    items.length !== count ||
    new Set(items).size !== count ||
    items.some((item) => !own.has(item)) ||
    exposed.join('\n') !== expected.join('\n')
  ) {
    throw new Error(
      `${kind.method} through the gateway does not match the upstream: upstream ${items.length} ${kind.field} ` +
        `(first: ${items.slice(0, 3).join(', ')}), gateway ${exposed.length} (first: ` +
        `${exposed.slice(0, 3).join(', ')}); expected the ${count} of upstream ${server}, in the same order`,
    );
  }
  return { items, exposed };
}
