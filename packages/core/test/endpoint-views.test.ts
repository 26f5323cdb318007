import { afterEach, describe, expect, it, vi } from 'vitest';
import { ListChangedCoalescer, type ListChanges } from '../src/notify/list-changed.js';
import { EndpointView, type ToolSearchConfig, type VirtualServerConfig } from '../src/views/endpoint-view.js';
import { EndpointViews } from '../src/views/endpoint-views.js';
import { listedIn } from '../src/views/listed-in.js';
import { hiddenBy } from '../src/views/not-exposed.js';

afterEach(() => vi.useRealTimers());

const dev = new EndpointView('dev', {
  servers: ['gh', 'ci-*'],
  tools: { allow: ['gh__*', 'ci-a__run'], deny: ['gh__delete_*'] },
  prompts: { deny: ['*'] },
  resources: { allow: ['gh+file:///docs/*'] },
});

describe('EndpointView', () => {
  it('exposes only its servers, and of those only what its globs over exposed names admit', () => {
    expect(['gh', 'ci-a', 'ci', 'docs'].map((s) => dev.includes(s))).toEqual([true, true, false, false]);
    expect(dev.tool('gh__search', 'gh')).toBe(true);
    expect(dev.tool('gh__delete_repo', 'gh')).toBe(false);
    expect(dev.tool('ci-a__run', 'ci-a')).toBe(true);
    expect(dev.tool('ci-a__other', 'ci-a')).toBe(false);
    // An unprefixed server's names match the globs as they are exposed; the server decides too.
    expect(dev.tool('gh__search', 'docs')).toBe(false);
    expect(dev.prompt('gh__summary', 'gh')).toBe(false);
    expect(dev.resource('gh+file:///docs/a.md', 'gh')).toBe(true);
    expect(dev.resource('gh+file:///secrets/a', 'gh')).toBe(false);
  });

  it('reads a resource URI every way an upstream may: a spelling that leaves the globs is refused', () => {
    const vault = new EndpointView('vault', {
      servers: ['gh'],
      resources: { allow: ['gh+file:///public/*'], deny: ['gh+file:///public/secret*'] },
    });
    expect(vault.resource('gh+file:///public/a.md', 'gh')).toBe(true);
    // Found from outside: dot segments passed the globs as written, and the upstream resolved them.
    for (const uri of [
      'gh+file:///public/x/../../private/a.md',
      'gh+file:///public/%2e%2e/private/a.md',
      'gh+file:///public/%252e%252e/private/a.md',
      'gh+file:///public/./secret.md',
      'gh+file:///public//secret.md',
      'gh+file:///public/secret.md#x',
      'gh+file:///public/a%ZZ',
    ]) {
      expect(vault.resource(uri, 'gh'), uri).toBe(false);
      expect(hiddenBy(vault, { kind: 'resource', upstream: 'gh', uri, exposed: uri }), uri).toBe(true);
    }
    expect(listedIn(vault, 'resourceTemplates', 'gh', { uriTemplate: 'gh+file:///public/{name}' })).toBe(
      true,
    );
    expect(listedIn(vault, 'resourceTemplates', 'gh', { uriTemplate: 'gh+file:///public/../{name}' })).toBe(
      false,
    );
    expect(hiddenBy(vault, { kind: 'template', upstream: 'gh', exposed: 'gh+file:///public/{+path}' })).toBe(
      false,
    );
    // The root endpoint and a virtual server without resource globs read nothing: the upstream decides.
    expect(new EndpointView('all', { servers: ['gh'] }).resource('gh+file:///public/../x', 'gh')).toBe(true);
  });

  it('treats prototype names as plain names', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'prototype']) {
      expect(dev.includes(name)).toBe(false);
      expect(dev.tool(name, 'gh')).toBe(false);
    }
  });

  it('tells what a request target it does not expose is, for every kind', () => {
    expect(hiddenBy(dev, { kind: 'tool', upstream: 'gh', name: 'delete_x', exposed: 'gh__delete_x' })).toBe(
      true,
    );
    expect(hiddenBy(dev, { kind: 'tool', upstream: 'gh', name: 'x', exposed: 'gh__x' })).toBe(false);
    expect(hiddenBy(dev, { kind: 'prompt', upstream: 'gh', name: 'p', exposed: 'gh__p' })).toBe(true);
    expect(hiddenBy(dev, { kind: 'resource', upstream: 'ci-a', uri: 'x', exposed: 'ci-a+x' })).toBe(true);
    expect(
      hiddenBy(new EndpointView(undefined), { kind: 'tool', upstream: 'gh', exposed: 'gh__delete_x' }),
    ).toBe(false);
    expect(hiddenBy(undefined, { kind: 'tool', upstream: 'gh', exposed: 'gh__delete_x' })).toBe(false);
  });

  it('keeps list items by their exposed name or URI, other lists by server', () => {
    expect(listedIn(dev, 'tools', 'gh', { name: 'gh__search' })).toBe(true);
    expect(listedIn(dev, 'tools', 'gh', { name: 'gh__delete_a' })).toBe(false);
    expect(listedIn(dev, 'tools', 'gh', { name: 42 })).toBe(false);
    expect(listedIn(dev, 'resourceTemplates', 'gh', { uriTemplate: 'gh+file:///docs/{p}' })).toBe(true);
    expect(listedIn(dev, 'skills', 'gh', {})).toBe(true);
    expect(listedIn(dev, 'skills', 'docs', {})).toBe(false);
  });
});

describe('EndpointViews', () => {
  const views = new EndpointViews(new Map([['dev', { servers: ['gh'] }]]), {
    enabled: true,
    limit: 5,
    alwaysList: [],
  });

  it('finds the root and the virtual servers by name; an unknown name finds nothing', () => {
    expect(views.get(undefined)?.whole).toBe(true);
    expect(views.get('dev')?.name).toBe('dev');
    expect(views.get('nope')).toBeUndefined();
    expect(views.get('__proto__')).toBeUndefined();
    expect(views.names()).toEqual(['dev']);
    // A virtual server without its own tool search takes the top-level one.
    expect(views.get('dev')?.toolSearch).toEqual({ enabled: true, limit: 5, alwaysList: [] });
  });

  it('tells which endpoints a reload changed: only theirs hear list_changed', () => {
    // Found from outside: a reload that changed one virtual server notified every endpoint.
    const search = { enabled: true, limit: 5, alwaysList: [] };
    const v = new EndpointViews(
      new Map([
        ['x', { servers: ['gh'], tools: { allow: ['gh__a'] } }],
        ['y', { servers: ['ci'] }],
        ['z', { servers: ['ci'], toolSearch: { ...search, limit: 3 } }],
      ]),
    );
    const again = (x: object, extra: [string, VirtualServerConfig][] = [], toolSearch?: ToolSearchConfig) =>
      v.configure(
        new Map<string, VirtualServerConfig>([
          ['x', x as VirtualServerConfig],
          ['y', { servers: ['ci'] }],
          ['z', { servers: ['ci'], toolSearch: { ...search, limit: 3 } }],
          ...extra,
        ]),
        toolSearch,
      );
    expect([...again({ servers: ['gh'], tools: { allow: ['gh__b'] } })]).toEqual(['x']);
    expect([...again({ servers: ['gh'], tools: { allow: ['gh__b'] } })]).toEqual([]);
    expect([
      ...again({ servers: ['gh'], tools: { allow: ['gh__b'] } }, [['w', { servers: ['gh'] }]]),
    ]).toEqual(['w']);
    expect([...again({ servers: ['gh'], tools: { allow: ['gh__b'] } })]).toEqual(['w']);
    // The top-level tool search: the root, and every virtual server that takes it (not z, with its own).
    expect([...again({ servers: ['gh'], tools: { allow: ['gh__b'] } }, [], search)].sort()).toEqual([
      'x',
      'y',
      undefined,
    ]);
  });

  it('says which sessions a list change concerns: by upstream when no name is known', () => {
    const all = (...upstreams: string[]) => new Map(upstreams.map((u) => [u, 'all' as const]));
    expect(views.concerns(undefined, 'tools', all('ci'))).toBe(true);
    expect(views.concerns('dev', 'tools', all('ci'))).toBe(false);
    expect(views.concerns('dev', 'tools', all('ci', 'gh'))).toBe(true);
    expect(views.concerns('dev', 'tools', 'all')).toBe(true);
    expect(views.concerns('gone', 'tools', 'all')).toBe(false);
  });

  it('says which upstreams some endpoint narrows a list of: only there do the names that change matter', () => {
    const narrowing = new EndpointViews(
      new Map([
        ['docs', { servers: ['gh', 'ci'], resources: { allow: ['gh+*'] } }],
        ['ops', { servers: ['ops'] }],
        ['quiet', { servers: ['mute'], resources: { deny: [] } }],
      ]),
    );
    expect(['gh', 'ci', 'ops', 'mute', 'other'].map((u) => narrowing.narrowed('resources', u))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // Other lists of the same upstreams are whole there.
    expect(narrowing.narrowed('tools', 'gh')).toBe(false);
    // The root endpoint alone narrows nothing.
    expect(new EndpointViews().narrowed('resources', 'gh')).toBe(false);
  });

  it('says which sessions a list change concerns: by the names that changed, through every glob', () => {
    const curated = new EndpointViews(
      new Map([
        ['dev', { servers: ['gh', 'ci'], tools: { allow: ['gh__*', 'ci__run'], deny: ['gh__delete_*'] } }],
        [
          'docs',
          {
            servers: ['gh'],
            prompts: { allow: ['gh__summary'] },
            resources: { allow: ['gh+file:///docs/*'] },
          },
        ],
      ]),
    );
    const changed = (upstream: string, ...names: string[]) => new Map([[upstream, new Set(names)]]);
    // A hidden name (denied, not allowed, another endpoint's server) concerns nobody but the root.
    expect(curated.concerns('dev', 'tools', changed('gh', 'gh__delete_repo'))).toBe(false);
    expect(curated.concerns('dev', 'tools', changed('ci', 'ci__other'))).toBe(false);
    expect(curated.concerns('docs', 'tools', changed('ci', 'ci__run'))).toBe(false);
    expect(curated.concerns(undefined, 'tools', changed('gh', 'gh__delete_repo'))).toBe(true);
    // One admitted name among hidden ones is enough.
    expect(curated.concerns('dev', 'tools', changed('gh', 'gh__delete_repo', 'gh__search'))).toBe(true);
    expect(curated.concerns('dev', 'tools', changed('ci', 'ci__run'))).toBe(true);
    // Each kind goes through its own globs.
    expect(curated.concerns('docs', 'prompts', changed('gh', 'gh__summary'))).toBe(true);
    expect(curated.concerns('docs', 'prompts', changed('gh', 'gh__other'))).toBe(false);
    expect(curated.concerns('docs', 'tools', changed('gh', 'gh__summary'))).toBe(true);
    expect(curated.concerns('docs', 'resources', changed('gh', 'gh+file:///src/a.ts'))).toBe(false);
    // Names of several upstreams: any one admitted; 'all' of an exposed upstream always.
    const mixed = new Map<string, ReadonlySet<string> | 'all'>([
      ['ci', new Set(['ci__other'])],
      ['gh', 'all'],
    ]);
    expect(curated.concerns('dev', 'tools', mixed)).toBe(true);
    expect(curated.concerns('dev', 'tools', new Map())).toBe(false);
    // Prototype names are plain names.
    expect(curated.concerns('dev', 'tools', changed('__proto__', '__proto__'))).toBe(false);
    expect(curated.concerns('dev', 'tools', changed('gh', '__proto__', 'constructor'))).toBe(false);
  });

  it("says which sessions a change the listing cannot see concerns: those showing that upstream's whole list", () => {
    const curated = new EndpointViews(
      new Map([
        ['dev', { servers: ['gh'], tools: { allow: ['gh__*'] } }],
        ['ops', { servers: ['gh'], tools: { deny: [] }, prompts: { deny: ['gh__secret'] } }],
      ]),
    );
    const unseen = new Map([['gh', new Set<string>()]]);
    expect(curated.concerns(undefined, 'tools', unseen)).toBe(true);
    // Globs narrow dev's tools: what changed may be hidden from it, so it hears nothing.
    expect(curated.concerns('dev', 'tools', unseen)).toBe(false);
    // Its prompts are gh's whole list; an empty deny list narrows nothing.
    expect(curated.concerns('dev', 'prompts', unseen)).toBe(true);
    expect(curated.concerns('ops', 'tools', unseen)).toBe(true);
    expect(curated.concerns('ops', 'prompts', unseen)).toBe(false);
    expect(curated.concerns('dev', 'tools', new Map([['ci', new Set<string>()]]))).toBe(false);
  });
});

describe('ListChangedCoalescer', () => {
  const shown = (changes: ListChanges) =>
    changes === 'all'
      ? 'all'
      : Object.fromEntries(
          [...changes].map(([upstream, names]) => [upstream, names === 'all' ? 'all' : [...names].sort()]),
        );

  it('gathers the upstreams that changed in one window, and everyone for a change of its own', async () => {
    vi.useFakeTimers();
    const emitted: [string, unknown][] = [];
    const coalescer = new ListChangedCoalescer(25, (kind, changes) => emitted.push([kind, shown(changes)]));
    coalescer.schedule('tools', 'gh');
    coalescer.schedule('tools', 'ci');
    coalescer.schedule('prompts', 'gh');
    await vi.advanceTimersByTimeAsync(25);
    coalescer.schedule('tools', 'gh');
    coalescer.schedule('tools');
    await vi.advanceTimersByTimeAsync(25);
    expect(emitted).toEqual([
      ['tools', { gh: 'all', ci: 'all' }],
      ['prompts', { gh: 'all' }],
      ['tools', 'all'],
    ]);
    coalescer.close();
  });

  it('gathers the names that changed per upstream; all of an upstream absorbs its names; none is still a change', async () => {
    vi.useFakeTimers();
    const emitted: [string, unknown][] = [];
    const coalescer = new ListChangedCoalescer(25, (kind, changes) => emitted.push([kind, shown(changes)]));
    const names = new Set(['gh__a']);
    coalescer.schedule('tools', 'gh', names);
    coalescer.schedule('tools', 'gh', new Set(['gh__b', '__proto__']));
    coalescer.schedule('tools', 'ci', new Set(['ci__x']));
    coalescer.schedule('tools', 'ci');
    coalescer.schedule('tools', 'ci', new Set(['ci__y']));
    coalescer.schedule('prompts', 'gh', new Set());
    await vi.advanceTimersByTimeAsync(25);
    expect(emitted).toEqual([
      ['tools', { gh: ['__proto__', 'gh__a', 'gh__b'], ci: 'all' }],
      ['prompts', { gh: [] }],
    ]);
    // The caller's set is not the one gathered into.
    expect([...names]).toEqual(['gh__a']);
    coalescer.close();
  });
});
