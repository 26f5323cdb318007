import { describe, expect, it } from 'vitest';
import type { ListPage } from '../src/listing/walk.js';
import { NameIndex } from '../src/routing/name-index.js';
import { recordingLogger } from './support/recording-logger.js';

/** An upstream's `tools/list`: `pages` in turn, joined by cursors `p1`, `p2`, …. */
function pages(...items: string[][]): ListPage {
  return async (_method, cursor) => {
    const i = cursor === undefined ? 0 : Number(cursor.slice(1));
    const tools = items[i]!.map((name) => ({ name }));
    return i + 1 < items.length ? { tools, nextCursor: `p${i + 1}` } : { tools };
  };
}

describe('NameIndex', () => {
  // Regression: an upstream listing one name twice (on one page or on two) was passed on without a word.
  it('says once that an upstream lists one name twice, on one page or across pages', async () => {
    const log = recordingLogger();
    const index = new NameIndex('tools', [{ name: 'u1', prefix: true, filter: () => true }], log);
    const listing = pages(['__proto__', 'dup', 'dup'], ['__proto__', 'ok']);
    for (let round = 0; round < 2; round++) expect(await index.refresh('u1', listing, 10)).toBe('complete');
    expect([...index.entries()]).toEqual([
      ['u1____proto__', { upstream: 'u1', name: '__proto__' }],
      ['u1__dup', { upstream: 'u1', name: 'dup' }],
      ['u1__ok', { upstream: 'u1', name: 'ok' }],
    ]);
    const message = 'an upstream lists one tool name twice; a page lists it once, later pages again';
    expect(log.entries).toEqual([
      { level: 'warn', message, fields: { upstream: 'u1', exposed: 'u1__dup', tool: 'dup' } },
      { level: 'warn', message, fields: { upstream: 'u1', exposed: 'u1____proto__', tool: '__proto__' } },
    ]);
  });
});
