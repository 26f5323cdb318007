import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../src/context.js';
import { MAX_MERGED_CURSOR_LENGTH } from '../src/cursor.js';
import { type ListKind, MergedListing, TRUNCATED_META_KEY } from '../src/listing/merged.js';
import { MAX_UPSTREAM_CURSOR_LENGTH } from '../src/listing/page-guard.js';
import type { UpstreamPool } from '../src/upstream/pool.js';
import { recordingLogger } from './support/recording-logger.js';

// The merged listing against upstreams that answer what real ones should not: cursors too long to carry
// (alone or together), items that are no objects, one name listed twice. Each page is what the engine
// makes of the upstreams' answers; the upstreams are stand-ins answering `tools/list` from a table.

type Json = Record<string, unknown>;

/** An upstream whose `tools/list` pages are `pages` (items of each), joined by the cursors `cursorOf(i)`. */
function upstream(name: string, pages: unknown[][], cursorOf = (i: number) => `p${i}`) {
  const index = new Map(pages.map((_, i) => [cursorOf(i), i]));
  return {
    name,
    state: 'ready',
    capabilities: { tools: {} },
    config: { prefix: true, transport: { kind: 'http', url: `http://${name}.test/mcp`, headers: {} } },
    request: async (_method: string, params: { cursor?: string }) => {
      const at = params.cursor === undefined ? 0 : index.get(params.cursor);
      if (at === undefined) throw new Error(`${name}: unknown cursor`);
      return at + 1 < pages.length
        ? { tools: pages[at], nextCursor: cursorOf(at + 1) }
        : { tools: pages[at] };
    },
  };
}

function pool(upstreams: ReturnType<typeof upstream>[]): UpstreamPool {
  const byName = new Map(upstreams.map((u) => [u.name, u]));
  return {
    ordered: upstreams,
    names: upstreams.map((u) => u.name),
    get: (name: string) => byName.get(name),
    limits: { maxResultBytes: 1 << 25, maxPagesPerList: 1000 },
  } as unknown as UpstreamPool;
}

/** Tools named `<server>__<name>`, one name listed once per page of an upstream. */
const TOOLS: ListKind = {
  method: 'tools/list',
  field: 'tools',
  cursorKind: 'x',
  feature: 'tools',
  key: 'name',
  expose: (u, item) =>
    typeof item.name === 'string' ? { ...item, name: `${u.name}__${item.name}` } : undefined,
};

function request(cursor?: string): RequestContext {
  return {
    method: 'tools/list',
    params: cursor === undefined ? {} : { cursor },
    session: { id: 'session' },
    identity: { id: 'anonymous', groups: [], anonymous: true },
    signal: new AbortController().signal,
    notifyRelated: async () => {},
    state: new Map(),
  } as unknown as RequestContext;
}

/** Every page of the merged listing, each from the cursor the one before handed out. */
async function walk(listing: MergedListing) {
  const pages: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await listing.list(TOOLS, request(cursor));
    pages.push(page);
    cursor = page.nextCursor as string | undefined;
    if (cursor !== undefined) expect(cursor.length).toBeLessThanOrEqual(MAX_MERGED_CURSOR_LENGTH);
  } while (cursor !== undefined && pages.length < 100);
  const names = pages.flatMap((p) => (p.tools as Json[]).map((t) => t.name as string));
  const truncated = pages.flatMap(
    (p) => ((p._meta as Json | undefined)?.[TRUNCATED_META_KEY] as string[]) ?? [],
  );
  return { pages, names, truncated };
}

const tools = (...names: string[]) => names.map((name) => ({ name }));

describe('merged listing: cursors the merged cursor cannot carry', () => {
  // Regression: a 200,000-character upstream cursor went into the merged cursor, which the gateway then
  // refused on page 2 (-32602 invalid_cursor), for the whole listing.
  it('cuts off an upstream whose cursor is too long, names it in _meta, and the others list to the end', async () => {
    const log = recordingLogger();
    const listing = new MergedListing(
      pool([
        upstream('good', [tools('a', 'b'), tools('c', 'd'), tools('e')]),
        upstream('big', [tools('x'), tools('y')], (i) => `${'G'.repeat(200_000)}${i}`),
        upstream('edge', [tools('m'), tools('n')], (i) => `${i}`.padEnd(MAX_UPSTREAM_CURSOR_LENGTH, '-')),
      ]),
      undefined,
      log,
    );
    for (let round = 0; round < 2; round++) {
      const { pages, names, truncated } = await walk(listing);
      expect(pages).toHaveLength(3);
      expect(names).toEqual([
        'good__a',
        'good__b',
        'big__x',
        'edge__m',
        'good__c',
        'good__d',
        'edge__n',
        'good__e',
      ]);
      expect(truncated).toEqual(['big']);
      expect((pages[0]!._meta as Json)[TRUNCATED_META_KEY]).toEqual(['big']);
    }
    // Logged once (rate-limited), saying why.
    const cuts = log.entries.filter((e) => e.message === 'upstream cut off from a merged listing');
    expect(cuts).toEqual([
      {
        level: 'warn',
        message: 'upstream cut off from a merged listing',
        fields: {
          upstream: 'big',
          method: 'tools/list',
          why: `its nextCursor is longer than ${MAX_UPSTREAM_CURSOR_LENGTH} characters`,
        },
      },
    ]);
  });

  it('cuts off the upstreams with the longest cursors when together they would not fit, never minting a cursor it refuses', async () => {
    const log = recordingLogger();
    const names = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'];
    const listing = new MergedListing(
      pool(names.map((n) => upstream(n, [tools('first'), tools('second')], (i) => `${i}`.repeat(8_000)))),
      undefined,
      log,
    );
    const walked = await walk(listing);
    expect(walked.pages).toHaveLength(2);
    // Eight 8,000-character cursors are more than 65,536 characters of merged cursor: the last two in config
    // order (as long as the others) are cut off after their first page.
    expect(walked.truncated).toEqual(['u7', 'u8']);
    expect(walked.names).toEqual([
      ...names.map((n) => `${n}__first`),
      ...names.slice(0, 6).map((n) => `${n}__second`),
    ]);
    expect(log.entries.filter((e) => e.level === 'warn').map((e) => e.fields?.why)).toEqual([
      `the upstreams' cursors together would make the merged cursor longer than ${MAX_MERGED_CURSOR_LENGTH} characters`,
      `the upstreams' cursors together would make the merged cursor longer than ${MAX_MERGED_CURSOR_LENGTH} characters`,
    ]);
  });
});

describe('merged listing: items that are no objects', () => {
  // Regression: a `null` item made the whole page fail with -32603 (the exposing read `null.name`).
  it('leaves out null, strings, numbers, booleans and arrays, and lists the rest', async () => {
    const listing = new MergedListing(
      pool([
        upstream('odd', [
          [null, 'str', 5, true, [1], { name: 'ok' }],
          [null, { name: 'later' }],
        ]),
        upstream('good', [tools('a')]),
      ]),
      undefined,
      recordingLogger(),
    );
    const { names, truncated } = await walk(listing);
    expect(names).toEqual(['odd__ok', 'good__a', 'odd__later']);
    expect(truncated).toEqual([]);
  });
});

describe('merged listing: one name listed twice by one upstream', () => {
  // Regression: `u1__dup` was listed twice, nothing logged.
  it('lists the first of a page and leaves out the later ones, logging it once', async () => {
    const log = recordingLogger();
    const listing = new MergedListing(
      pool([
        upstream('u1', [
          [{ name: 'dup', description: 'first' }, { name: 'dup', description: 'second' }, { name: 'ok' }],
          [{ name: 'next' }, { name: 'next' }],
        ]),
        upstream('u2', [tools('dup')]),
      ]),
      undefined,
      log,
    );
    for (let round = 0; round < 2; round++) {
      const { pages } = await walk(listing);
      expect(pages.map((p) => p.tools)).toEqual([
        [{ name: 'u1__dup', description: 'first' }, { name: 'u1__ok' }, { name: 'u2__dup' }],
        [{ name: 'u1__next' }],
      ]);
    }
    expect(log.entries).toEqual([
      {
        level: 'warn',
        message: 'upstream listed one name twice; the first is listed',
        fields: { upstream: 'u1', method: 'tools/list', name: 'u1__dup' },
      },
    ]);
  });
});
