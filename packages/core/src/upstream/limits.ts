/**
 * Bounds on what upstreams may send (DESIGN §11, config `limits`). The gateway reads them live: a reload
 * changes the object in place.
 */
export interface UpstreamLimits {
  /** An upstream message over this many bytes fails the request it answers (`result_too_large`). */
  maxResultBytes: number;
  /** One merged enumeration asks one upstream for at most this many pages, then cuts it off. */
  maxPagesPerList: number;
}

export const DEFAULT_UPSTREAM_LIMITS: Readonly<UpstreamLimits> = Object.freeze({
  maxResultBytes: 32 * 1024 * 1024,
  maxPagesPerList: 1_000,
});
