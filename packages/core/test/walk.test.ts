import { describe, expect, it } from 'vitest';
import { type ListPage, walk } from '../src/listing/walk.js';

/** An upstream whose page at `cursor` has items [cursor] and the next cursor `next(cursor)`; records calls. */
function upstream(next: (cursor: string | undefined) => unknown) {
  const calls: string[] = [];
  const list: ListPage = async (method, cursor) => {
    calls.push(`${method} ${cursor ?? '-'}`);
    const nextCursor = next(cursor);
    return nextCursor === undefined ? { tools: [cursor ?? '-'] } : { tools: [cursor ?? '-'], nextCursor };
  };
  const items: unknown[] = [];
  const onPage = (page: Record<string, unknown>) => items.push(...(page.tools as unknown[]));
  return { list, calls, items, onPage };
}

describe('walk', () => {
  it('reads every page in order and ends complete', async () => {
    const u = upstream((cursor) => ({ '-': 'a', a: 'b' })[cursor ?? '-']);
    expect(await walk(u.list, 'tools/list', u.onPage, 10)).toBe('complete');
    expect(u.calls).toEqual(['tools/list -', 'tools/list a', 'tools/list b']);
    expect(u.items).toEqual(['-', 'a', 'b']);
  });

  it('takes an empty or non-string nextCursor as the end', async () => {
    for (const end of ['', null, 7, {}]) {
      const u = upstream((cursor) => (cursor === undefined ? 'a' : end));
      expect(await walk(u.list, 'prompts/list', u.onPage, 10)).toBe('complete');
      expect(u.calls).toEqual(['prompts/list -', 'prompts/list a']);
    }
  });

  it('ends complete when the last page allowed has no next cursor', async () => {
    const u = upstream((cursor) => (cursor === undefined ? 'a' : cursor === 'a' ? 'b' : undefined));
    expect(await walk(u.list, 'tools/list', u.onPage, 3)).toBe('complete');
    expect(u.calls).toHaveLength(3);
  });

  it('cuts off at a cursor given before, keeping what was read', async () => {
    const self = upstream((cursor) => cursor ?? 'a');
    expect(await walk(self.list, 'resources/list', self.onPage, 100)).toBe('repeated-cursor');
    expect(self.calls).toEqual(['resources/list -', 'resources/list a']);
    expect(self.items).toEqual(['-', 'a']);

    // Unlike a merged cursor, a walk remembers every cursor: a long cycle ends when it closes.
    const long = upstream((cursor) => `c${((cursor === undefined ? 0 : Number(cursor.slice(1))) % 10) + 1}`);
    expect(await walk(long.list, 'resources/templates/list', long.onPage, 100)).toBe('repeated-cursor');
    expect(long.calls).toHaveLength(11);
  });

  it('cuts off after maxPages pages of an endless upstream', async () => {
    let n = 0;
    const u = upstream(() => `p${++n}`);
    expect(await walk(u.list, 'tools/list', u.onPage, 5)).toBe('page-limit');
    expect(u.calls).toEqual([
      'tools/list -',
      'tools/list p1',
      'tools/list p2',
      'tools/list p3',
      'tools/list p4',
    ]);
    expect(u.items).toHaveLength(5);
  });

  it('passes a failing page on', async () => {
    const pages: unknown[] = [];
    const list: ListPage = async (_method, cursor) => {
      if (cursor === 'a') throw new Error('upstream down');
      return { nextCursor: 'a' };
    };
    await expect(walk(list, 'skills/list', (p) => pages.push(p), 10)).rejects.toThrow('upstream down');
    expect(pages).toHaveLength(1);
  });
});
