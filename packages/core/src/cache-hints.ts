/** The freshness hints of a cacheable result (modern era `ttlMs` / `cacheScope`). */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * Merges the hints of the upstream pages that make up one merged page: `ttlMs` is the minimum and the
 * scope is `public` only when every page says `public`. A page without hints counts as `0`/`private`,
 * which is what their absence means. Undefined when no page carried any hint (legacy upstreams only).
 */
export function mergeCacheHints(pages: readonly Record<string, unknown>[]): CacheHints | undefined {
  let carried = false;
  let ttlMs = Number.POSITIVE_INFINITY;
  let allPublic = true;
  for (const page of pages) {
    const ttl = page.ttlMs;
    const scope = page.cacheScope;
    if (typeof ttl === 'number' || typeof scope === 'string') carried = true;
    ttlMs = Math.min(ttlMs, typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0);
    if (scope !== 'public') allPublic = false;
  }
  if (!carried) return undefined;
  return { ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0, cacheScope: allPublic ? 'public' : 'private' };
}
