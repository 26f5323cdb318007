import { describe, expect, it } from 'vitest';
import { mergeCacheHints } from '../src/cache-hints.js';

describe('mergeCacheHints', () => {
  it('is undefined when no page carries hints (legacy upstreams)', () => {
    expect(mergeCacheHints([])).toBeUndefined();
    expect(mergeCacheHints([{ resources: [] }, { resources: [] }])).toBeUndefined();
  });

  it('takes the minimum ttl and is public only when every page is public', () => {
    expect(
      mergeCacheHints([
        { ttlMs: 60_000, cacheScope: 'public' },
        { ttlMs: 5_000, cacheScope: 'public' },
      ]),
    ).toEqual({ ttlMs: 5_000, cacheScope: 'public' });
    expect(
      mergeCacheHints([
        { ttlMs: 60_000, cacheScope: 'public' },
        { ttlMs: 30_000, cacheScope: 'private' },
      ]),
    ).toEqual({ ttlMs: 30_000, cacheScope: 'private' });
  });

  it('counts a page without hints as immediately stale and private, as their absence means', () => {
    expect(mergeCacheHints([{ ttlMs: 60_000, cacheScope: 'public' }, { resources: [] }])).toEqual({
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it('treats nonsense ttl values as 0 and floors fractions', () => {
    expect(mergeCacheHints([{ ttlMs: -5, cacheScope: 'public' }])).toEqual({
      ttlMs: 0,
      cacheScope: 'public',
    });
    expect(mergeCacheHints([{ ttlMs: Number.NaN, cacheScope: 'public' }])).toEqual({
      ttlMs: 0,
      cacheScope: 'public',
    });
    expect(mergeCacheHints([{ ttlMs: 1500.7, cacheScope: 'public' }])).toEqual({
      ttlMs: 1500,
      cacheScope: 'public',
    });
    expect(mergeCacheHints([{ ttlMs: 100, cacheScope: 'shared' }])).toEqual({
      ttlMs: 100,
      cacheScope: 'private',
    });
  });
});
