import { describe, expect, it } from 'vitest';
import type { ListPage } from '../src/listing/walk.js';
import type { Logger } from '../src/logger.js';
import { UnprefixedCatalog } from '../src/routing/unprefixed-catalog.js';

type Method = Parameters<ListPage>[0];

interface Entry {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

function recordingLogger(entries: Entry[] = []): Logger & { entries: Entry[] } {
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      entries.push({ level, message, fields });
    };
  const logger: Logger & { entries: Entry[] } = {
    entries,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

/** A fake upstream answering one page per call; cursors are `p<index>`. Records every call. */
function fakeUpstream(resourcePages: string[][], templatePages: string[][] = [[]]) {
  const calls: string[] = [];
  const list: ListPage = async (method, cursor) => {
    calls.push(`${method} ${cursor ?? '-'}`);
    const pages = method === 'resources/list' ? resourcePages : templatePages;
    const index = cursor === undefined ? 0 : Number(cursor.slice(1));
    const items = pages[index] ?? [];
    const next = index + 1 < pages.length ? { nextCursor: `p${index + 1}` } : {};
    return method === 'resources/list'
      ? { resources: items.map((uri) => ({ uri, name: uri })), ...next }
      : { resourceTemplates: items.map((uriTemplate) => ({ uriTemplate, name: 't' })), ...next };
  };
  return { list, calls };
}

/** A ListPage whose calls wait until the test answers them. */
function controlledUpstream() {
  const waiting: Array<{ method: Method; answer: (page: Record<string, unknown>) => void }> = [];
  let wake: (() => void) | undefined;
  const list: ListPage = (method) =>
    new Promise((resolve) => {
      waiting.push({ method, answer: resolve });
      wake?.();
    });
  return {
    list,
    /** Waits for the next call and answers it. */
    async answer(method: Method, page: Record<string, unknown>): Promise<void> {
      while (waiting.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const call = waiting.shift()!;
      expect(call.method).toBe(method);
      call.answer(page);
    },
  };
}

const resources = (...uris: string[]) => ({ resources: uris.map((uri) => ({ uri, name: uri })) });
const templates = (...raw: string[]) => ({ resourceTemplates: raw.map((uriTemplate) => ({ uriTemplate })) });

describe('UnprefixedCatalog', () => {
  it('walks every page of resources and templates', async () => {
    const catalog = new UnprefixedCatalog(['docs'], recordingLogger());
    const upstream = fakeUpstream(
      [['mem://1', 'mem://2'], ['mem://3'], ['mem://4', 'mem://5']],
      [['tpl://a/{id}'], ['tpl://b/{id}']],
    );
    await catalog.refresh('docs', upstream.list);
    expect(upstream.calls).toEqual([
      'resources/list -',
      'resources/list p1',
      'resources/list p2',
      'resources/templates/list -',
      'resources/templates/list p1',
    ]);
    for (const uri of ['mem://1', 'mem://2', 'mem://3', 'mem://4', 'mem://5']) {
      expect(catalog.ownerOf(uri)).toBe('docs');
      expect(catalog.resolve(uri)).toBe('docs');
    }
    expect(catalog.ownerOf('mem://6')).toBeUndefined();
    expect(catalog.resolve('tpl://b/42')).toBe('docs');
    expect(catalog.resolveTemplate('tpl://a/{id}')).toBe('docs');
    expect(catalog.resolveTemplate('tpl://b/{id}')).toBe('docs');
    // ownerOf is exact URIs only.
    expect(catalog.ownerOf('tpl://b/42')).toBeUndefined();
  });

  it('stops at an empty or non-string nextCursor and skips malformed entries', async () => {
    const catalog = new UnprefixedCatalog(['docs'], recordingLogger());
    const calls: string[] = [];
    await catalog.refresh('docs', async (method, cursor) => {
      calls.push(`${method} ${cursor ?? '-'}`);
      if (method === 'resources/list') {
        return { resources: [{ uri: 'mem://ok' }, { uri: 42 }, null, { name: 'no uri' }], nextCursor: '' };
      }
      return { resourceTemplates: 'not an array', nextCursor: 7 };
    });
    expect(calls).toEqual(['resources/list -', 'resources/templates/list -']);
    expect(catalog.ownerOf('mem://ok')).toBe('docs');
    expect(catalog.resolveTemplate('not an array')).toBeUndefined();
  });

  it('prefers an exact URI over a template match, whatever the config order', async () => {
    const catalog = new UnprefixedCatalog(['first', 'second'], recordingLogger());
    await catalog.refresh('first', fakeUpstream([[]], [['mem://{id}']]).list);
    await catalog.refresh('second', fakeUpstream([['mem://42']]).list);
    expect(catalog.resolve('mem://42')).toBe('second');
    expect(catalog.resolve('mem://7')).toBe('first');
    expect(catalog.resolve('other://7')).toBeUndefined();
  });

  it('lets config order win URI and template collisions, not refresh order', async () => {
    const logger = recordingLogger();
    const catalog = new UnprefixedCatalog(['first', 'second'], logger);
    await catalog.refresh(
      'second',
      fakeUpstream([['mem://shared', 'mem://only-second']], [['t://{x}']]).list,
    );
    expect(catalog.ownerOf('mem://shared')).toBe('second');
    await catalog.refresh('first', fakeUpstream([['mem://shared']], [['t://{x}']]).list);
    expect(catalog.ownerOf('mem://shared')).toBe('first');
    expect(catalog.ownerOf('mem://only-second')).toBe('second');
    expect(catalog.resolveTemplate('t://{x}')).toBe('first');
    expect(catalog.resolve('t://9')).toBe('first');
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    expect(warnings.map((w) => w.fields)).toEqual([
      { uri: 'mem://shared', winner: 'first', hidden: 'second' },
      { uriTemplate: 't://{x}', winner: 'first', hidden: 'second' },
    ]);
  });

  it('reports membership of the configured unprefixed servers', () => {
    const catalog = new UnprefixedCatalog(['a', 'b'], recordingLogger());
    expect(catalog.has('a')).toBe(true);
    expect(catalog.has('b')).toBe(true);
    expect(catalog.has('c')).toBe(false);
  });

  it('replaces a server entry on refresh (removed resources disappear)', async () => {
    const catalog = new UnprefixedCatalog(['docs'], recordingLogger());
    await catalog.refresh('docs', fakeUpstream([['mem://1', 'mem://2']], [['t://{x}']]).list);
    await catalog.refresh('docs', fakeUpstream([['mem://2']]).list);
    expect(catalog.ownerOf('mem://1')).toBeUndefined();
    expect(catalog.ownerOf('mem://2')).toBe('docs');
    expect(catalog.resolveTemplate('t://{x}')).toBeUndefined();
  });

  it('forget removes a server, handing its collisions to the next in order', async () => {
    const catalog = new UnprefixedCatalog(['first', 'second'], recordingLogger());
    await catalog.refresh('first', fakeUpstream([['mem://shared', 'mem://mine']], [['t://{x}']]).list);
    await catalog.refresh('second', fakeUpstream([['mem://shared']]).list);
    catalog.forget('first');
    expect(catalog.ownerOf('mem://shared')).toBe('second');
    expect(catalog.ownerOf('mem://mine')).toBeUndefined();
    expect(catalog.resolve('t://1')).toBeUndefined();
    expect(catalog.resolveTemplate('t://{x}')).toBeUndefined();
    // Forgetting an unknown or already forgotten server is harmless.
    catalog.forget('first');
    catalog.forget('nobody');
    expect(catalog.ownerOf('mem://shared')).toBe('second');
  });

  it('keeps a resource index when only the template listing fails', async () => {
    const logger = recordingLogger();
    const catalog = new UnprefixedCatalog(['docs'], logger);
    await catalog.refresh('docs', async (method) => {
      if (method === 'resources/templates/list') throw new Error('Method not found');
      return resources('mem://1');
    });
    expect(catalog.ownerOf('mem://1')).toBe('docs');
    expect(logger.entries.some((e) => e.level === 'debug' && e.fields?.server === 'docs')).toBe(true);
  });

  it('keeps the previous index when the resource listing fails', async () => {
    const catalog = new UnprefixedCatalog(['docs'], recordingLogger());
    await catalog.refresh('docs', fakeUpstream([['mem://old']]).list);
    await expect(
      catalog.refresh('docs', async () => {
        throw new Error('upstream down');
      }),
    ).rejects.toThrow('upstream down');
    expect(catalog.ownerOf('mem://old')).toBe('docs');
  });

  it('does not let a stale refresh overwrite a newer one', async () => {
    const catalog = new UnprefixedCatalog(['docs'], recordingLogger());
    const slow = controlledUpstream();
    const fast = controlledUpstream();
    const older = catalog.refresh('docs', slow.list);
    const newer = catalog.refresh('docs', fast.list);
    await fast.answer('resources/list', resources('mem://new'));
    await fast.answer('resources/templates/list', templates('new://{x}'));
    await newer;
    expect(catalog.ownerOf('mem://new')).toBe('docs');

    await slow.answer('resources/list', resources('mem://old'));
    await slow.answer('resources/templates/list', templates('old://{x}'));
    await older;
    expect(catalog.ownerOf('mem://new')).toBe('docs');
    expect(catalog.ownerOf('mem://old')).toBeUndefined();
    expect(catalog.resolveTemplate('old://{x}')).toBeUndefined();
    expect(catalog.resolveTemplate('new://{x}')).toBe('docs');
  });

  it('does not let a refresh that was in flight during forget resurrect the server', async () => {
    const catalog = new UnprefixedCatalog(['docs'], recordingLogger());
    const upstream = controlledUpstream();
    const refresh = catalog.refresh('docs', upstream.list);
    catalog.forget('docs');
    await upstream.answer('resources/list', resources('mem://1'));
    await upstream.answer('resources/templates/list', templates());
    await refresh;
    expect(catalog.ownerOf('mem://1')).toBeUndefined();
    expect(catalog.resolve('mem://1')).toBeUndefined();
  });

  it('ignores template strings it cannot parse for matching but still knows their owner', async () => {
    const catalog = new UnprefixedCatalog(['docs'], recordingLogger());
    await catalog.refresh('docs', fakeUpstream([[]], [['broken://{unclosed', 'ok://{x}']]).list);
    expect(catalog.resolveTemplate('broken://{unclosed')).toBe('docs');
    expect(catalog.resolve('broken://{unclosed')).toBeUndefined();
    expect(catalog.resolve('ok://1')).toBe('docs');
  });
});

describe('UnprefixedCatalog collision reporting', () => {
  it('names the first few collisions and counts the rest, so a big overlap does not flood the log', async () => {
    const logger = recordingLogger();
    const catalog = new UnprefixedCatalog(['first', 'second'], logger);
    const uris = Array.from({ length: 8 }, (_, i) => `mem://shared/${i}`);
    await catalog.refresh('first', fakeUpstream([uris]).list);
    await catalog.refresh('second', fakeUpstream([uris]).list);
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    expect(warnings).toHaveLength(6);
    expect(warnings.slice(0, 5).map((w) => w.fields?.uri)).toEqual(uris.slice(0, 5));
    expect(warnings[5]?.fields).toEqual({ total: 8 });
    expect(uris.every((uri) => catalog.ownerOf(uri) === 'first')).toBe(true);
  });
});
