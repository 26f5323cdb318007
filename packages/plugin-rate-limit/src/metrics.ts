/** Metric names this plugin reports through the gateway's OpenTelemetry meter. */
export const METRICS = {
  /**
   * Counter of refused requests, attribute `kind`: `client` (rate_limited), `upstream` (upstream_busy) or
   * `store` (store_unavailable: a shared budget could not be checked under `onUnavailable: "refuse"`).
   */
  rejected: 'switchyard.ratelimit.rejected',
  /** Observable gauge of calls waiting for an upstream slot, attribute `upstream`. */
  queued: 'switchyard.ratelimit.queued',
} as const;
