import { DEFAULT_MAX_JSON_DEPTH } from '../json-depth.js';

/**
 * Bounds on what upstreams may send (DESIGN §11, config `limits`). The gateway reads them live: a reload
 * changes the object in place.
 */
export interface UpstreamLimits {
  /** An upstream message over this many bytes fails the request it answers (`result_too_large`). */
  maxResultBytes: number;
  /** One merged enumeration asks one upstream for at most this many pages, then cuts it off. */
  maxPagesPerList: number;
  /**
   * `limits.maxJsonDepth` (default {@link DEFAULT_MAX_JSON_DEPTH}): an upstream message nested more than
   * twice this deep fails the request it answers (`upstream_invalid_result`) or is dropped.
   */
  maxJsonDepth?: number;
}

export const DEFAULT_UPSTREAM_LIMITS: Readonly<Required<UpstreamLimits>> = Object.freeze({
  maxResultBytes: 32 * 1024 * 1024,
  maxPagesPerList: 1_000,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
});
