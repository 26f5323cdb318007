/** Who may be served a cached read: everyone (`shared`), or only the identity that read it. */
export type Audience = 'shared' | 'private';

/** What a read result allows the cache to do with it. */
export type Freshness =
  | { readonly cacheable: false; readonly audience: Audience }
  | {
      readonly cacheable: true;
      /** How long the entry may be served: min(the cache's ttlMs, the upstream's ttlMs). */
      readonly ttlMs: number;
      readonly audience: Audience;
      /** The upstream stated a `ttlMs` (modern era): hits report the remaining freshness. */
      readonly statesTtl: boolean;
    };

/**
 * Reads the freshness hints of a `resources/read` result.
 *
 * - No `ttlMs` and no `cacheScope` (a legacy upstream): shared for `maxTtlMs`. The gateway reaches the
 *   upstream with its own credentials, so the answer cannot depend on which client asked.
 * - Hinted (modern upstream): `ttlMs` of 0 (or missing, which means 0) is not cacheable; otherwise the
 *   entry lives min(`maxTtlMs`, `ttlMs`). It is shared only when `cacheScope` is `public` (a missing or
 *   unknown scope means `private`, as in the core's hint merging); the audience also says who may join
 *   a read in flight.
 *
 * @example
 * freshnessOf({ contents: [], ttlMs: 5000, cacheScope: 'public' }, 300000); // { cacheable: true, ttlMs: 5000, audience: 'shared', statesTtl: true }
 */
export function freshnessOf(result: Record<string, unknown>, maxTtlMs: number): Freshness {
  const ttl = result.ttlMs;
  const scope = result.cacheScope;
  if (ttl === undefined && scope === undefined) {
    return { cacheable: true, ttlMs: maxTtlMs, audience: 'shared', statesTtl: false };
  }
  const upstreamTtl = typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0;
  const audience = scope === 'public' ? 'shared' : 'private';
  if (upstreamTtl === 0) return { cacheable: false, audience };
  return { cacheable: true, ttlMs: Math.min(maxTtlMs, upstreamTtl), audience, statesTtl: true };
}

/** The size an entry counts for: the bytes of its JSON encoding (undefined if it cannot be encoded). */
export function encodedBytes(result: Record<string, unknown>): number | undefined {
  try {
    return Buffer.byteLength(JSON.stringify(result));
  } catch {
    return undefined;
  }
}

/** The cache key of an entry every identity may be served. */
export function sharedKey(uri: string): string {
  return `s${uri}`;
}

/** The cache key of an entry only `identity` may be served (length-prefixed: no two pairs collide). */
export function privateKey(identity: string, uri: string): string {
  return `p${identity.length}:${identity}${uri}`;
}

/**
 * A copy of a cached result that a caller may change without changing the cache: the result and each
 * of its `contents` items are copied (one level; the texts and blobs themselves are immutable strings).
 */
export function copyResult(result: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...result };
  if (Array.isArray(result.contents)) {
    copy.contents = result.contents.map((item: unknown) =>
      typeof item === 'object' && item !== null && !Array.isArray(item) ? { ...item } : item,
    );
  }
  return copy;
}
