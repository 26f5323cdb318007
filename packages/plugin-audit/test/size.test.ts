import { describe, expect, it } from 'vitest';
import { encodedSize } from '../src/size.js';

const exact = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('encodedSize', () => {
  it('matches JSON.stringify for results without escape sequences', () => {
    const values: unknown[] = [
      { contents: [{ uri: 'docs+file:///a.md', mimeType: 'text/plain', text: 'héllo wörld ✓' }] },
      { contents: [{ uri: 'x', blob: Buffer.alloc(1000, 7).toString('base64') }] },
      {
        resources: [],
        nextCursor: 'abc',
        ttlMs: 0,
        cacheScope: 'private',
        flag: true,
        off: false,
        none: null,
      },
      { nested: [[1, 2.5, -3e-7], [], {}], skipped: undefined },
      [undefined, 'a'],
      { error: { code: -32602, message: 'not found', data: { reason: 'resource_not_found' } } },
    ];
    for (const value of values) expect(encodedSize(value)).toBe(exact(value));
  });

  it('uses toJSON like JSON.stringify does', () => {
    const value = { when: { toJSON: () => 'later' } };
    expect(encodedSize(value)).toBe(exact(value));
  });

  it('undercounts only the escape sequences inside strings', () => {
    const value = { text: 'a\n"b"' };
    expect(exact(value) - encodedSize(value)!).toBe(3);
  });

  it('gives up on values JSON cannot encode, or that nest absurdly deep (cycles)', () => {
    expect(encodedSize({ n: 1n })).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(encodedSize(cyclic)).toBeUndefined();
  });
});
