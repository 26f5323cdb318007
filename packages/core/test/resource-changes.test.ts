import { describe, expect, it } from 'vitest';
import { ErrorCode, GatewayError } from '../src/errors.js';
import { pagesOf, sharedPages } from '../src/listing/shared-pages.js';
import type { ListPage } from '../src/listing/walk.js';
import { silentLogger } from '../src/logger.js';
import type { ChangedNames } from '../src/routing/changed-names.js';
import { ResourceChanges } from '../src/routing/resource-changes.js';
import { UnprefixedCatalog } from '../src/routing/unprefixed-catalog.js';
import type { UpstreamConnection } from '../src/upstream/connection.js';

type Item = Record<string, unknown>;

/** A connected upstream whose lists are `state`'s, `pageSize` items a page; it counts what it is asked. */
function upstream(name: string, prefix = true) {
  const state = {
    resources: [] as Item[],
    templates: [] as Item[] | 'unsupported' | 'failing',
    pageSize: 2,
    nextCursorAlways: false,
    requests: [] as string[],
  };
  const page = (items: Item[], field: string, cursor: unknown) => {
    const start = typeof cursor === 'string' ? Number(cursor) : 0;
    const end = start + state.pageSize;
    const next = state.nextCursorAlways ? String(end) : end < items.length ? String(end) : undefined;
    return { [field]: items.slice(start, end), ...(next === undefined ? {} : { nextCursor: next }) };
  };
  const u = {
    name,
    state: 'ready',
    capabilities: { resources: {} },
    config: { prefix },
    async request(method: string, params: Item) {
      state.requests.push(method);
      if (method === 'resources/list') return page(state.resources, 'resources', params.cursor);
      if (state.templates === 'unsupported')
        throw new GatewayError(ErrorCode.MethodNotFound, 'Method not found');
      if (state.templates === 'failing') throw new Error('boom');
      return page(state.templates, 'resourceTemplates', params.cursor);
    },
  };
  return { u: u as unknown as UpstreamConnection, state };
}

const resource = (uri: string, description = `about ${uri}`) => ({ uri, name: uri, description });
const sorted = (names: ChangedNames) => (names === 'all' ? 'all' : [...names].sort());

function changes(matters: (upstream: string) => boolean = () => true, maxPages = 10) {
  return new ResourceChanges(matters, () => maxPages, silentLogger);
}

describe('ResourceChanges', () => {
  it('names the exposed URIs added, removed or described differently, and the URI templates', async () => {
    const { u, state } = upstream('gh');
    state.resources = [resource('file:///a'), resource('file:///b'), resource('file:///c')];
    state.templates = [{ uriTemplate: 'file:///t/{id}', name: 't' }];
    const c = changes();
    await c.baseline(u);
    state.resources = [resource('file:///a'), resource('file:///b', 'reworded'), resource('file:///d')];
    state.templates = [{ uriTemplate: 'file:///u/{id}', name: 'u' }];
    expect(sorted(await c.relist(u))).toEqual([
      'gh+file:///b',
      'gh+file:///c',
      'gh+file:///d',
      'gh+file:///t/{id}',
      'gh+file:///u/{id}',
    ]);
    // Listed as it was: no name (heard only where the upstream's whole list is shown).
    expect(sorted(await c.relist(u))).toEqual([]);
  });

  it("names an unprefixed server's URIs as they are, and prototype names as plain ones", async () => {
    const { u, state } = upstream('docs', false);
    state.resources = [resource('__proto__')];
    const c = changes();
    await c.baseline(u);
    state.resources = [resource('__proto__', 'other'), resource('constructor')];
    expect(sorted(await c.relist(u))).toEqual(['__proto__', 'constructor']);
  });

  it('lists nothing and says all where no endpoint narrows the upstream', async () => {
    const { u, state } = upstream('gh');
    const c = changes((name) => name !== 'gh');
    await c.baseline(u);
    expect(await c.relist(u)).toBe('all');
    expect(state.requests).toEqual([]);
  });

  it('takes a first listing only of what is not listed yet (the endpoints changed, it connected)', async () => {
    const { u, state } = upstream('gh');
    let narrowed = false;
    const c = changes(() => narrowed);
    await c.baseline(u);
    expect(state.requests).toEqual([]);
    narrowed = true;
    await c.baseline(u);
    await c.baseline(u);
    expect(state.requests).toEqual(['resources/list', 'resources/templates/list']);
    state.resources = [resource('file:///a')];
    expect(sorted(await c.relist(u))).toEqual(['gh+file:///a']);
  });

  it('says all with nothing to compare with, then compares with that listing', async () => {
    const { u, state } = upstream('gh');
    state.resources = [resource('file:///a')];
    const c = changes();
    expect(await c.relist(u)).toBe('all');
    state.resources = [resource('file:///a'), resource('file:///b')];
    expect(sorted(await c.relist(u))).toEqual(['gh+file:///b']);
  });

  it('takes an upstream that does not list templates as having none', async () => {
    const { u, state } = upstream('gh');
    state.templates = 'unsupported';
    const c = changes();
    await c.baseline(u);
    state.resources = [resource('file:///a')];
    expect(sorted(await c.relist(u))).toEqual(['gh+file:///a']);
  });

  it('says all when a listing fails or is cut off, and starts over after it', async () => {
    const { u, state } = upstream('gh');
    state.resources = [resource('file:///a')];
    const c = changes(() => true, 3);
    await c.baseline(u);
    state.templates = 'failing';
    expect(await c.relist(u)).toBe('all');
    state.templates = [];
    expect(await c.relist(u)).toBe('all');
    expect(sorted(await c.relist(u))).toEqual([]);
    // More pages than limits.maxPagesPerList: cut off.
    state.resources = Array.from({ length: 7 }, (_, i) => resource(`file:///${i}`));
    expect(await c.relist(u)).toBe('all');
    state.resources = [resource('file:///a')];
    expect(await c.relist(u)).toBe('all');
    state.nextCursorAlways = true;
    expect(await c.relist(u)).toBe('all');
  });

  it('forgets an upstream that dropped or that a reload retired: its next listing is a first', async () => {
    const gh = upstream('gh');
    const ci = upstream('ci');
    const c = changes();
    await Promise.all([c.baseline(gh.u), c.baseline(ci.u)]);
    c.forget('gh');
    gh.state.resources = [resource('file:///a')];
    expect(await c.relist(gh.u)).toBe('all');
    c.retain(new Set(['gh']));
    ci.state.resources = [resource('file:///a')];
    expect(await c.relist(ci.u)).toBe('all');
    gh.state.resources = [];
    expect(sorted(await c.relist(gh.u))).toEqual(['gh+file:///a']);
  });

  it('lists a change announced during a listing again after it', async () => {
    const { u, state } = upstream('gh');
    const c = changes();
    await c.baseline(u);
    const first = c.relist(u);
    state.resources = [resource('file:///new')];
    const second = c.relist(u);
    const [a, b] = await Promise.all([first, second]);
    // Whichever listing saw it, the change is named once between them.
    expect([...sorted(a), ...sorted(b)]).toEqual(['gh+file:///new']);
  });

  it("reads an unprefixed server's pages once for its index and for the change's names (shared pages)", async () => {
    const { u, state } = upstream('docs', false);
    state.resources = ['a', 'b', 'c'].map((x) => resource(`file:///${x}`));
    state.templates = [{ uriTemplate: 'file:///t/{id}', name: 't' }];
    const catalog = new UnprefixedCatalog(['docs'], silentLogger);
    const c = changes();
    const round = async (names: (pages: ListPage) => Promise<unknown>) => {
      state.requests = [];
      const pages = sharedPages(pagesOf(u));
      const [changed] = await Promise.all([names(pages), catalog.refresh('docs', pages)]);
      return changed;
    };
    await round((pages) => c.baseline(u, pages));
    // Two pages of resources and one of templates: each asked once, not once per reader.
    expect(state.requests.sort()).toEqual(['resources/list', 'resources/list', 'resources/templates/list']);
    state.resources = [...state.resources, resource('file:///d')];
    expect(sorted((await round((pages) => c.relist(u, pages))) as ChangedNames)).toEqual(['file:///d']);
    expect(state.requests.sort()).toEqual(['resources/list', 'resources/list', 'resources/templates/list']);
    expect(catalog.resolve('file:///d')).toBe('docs');
  });
});
