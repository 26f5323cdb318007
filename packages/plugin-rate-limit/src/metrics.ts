/** Metric names this plugin reports through the gateway's OpenTelemetry meter. */
export const METRICS = {
  /** Counter of refused requests, attribute `kind`: `client` (rate_limited) or `upstream` (upstream_busy). */
  rejected: 'switchyard.ratelimit.rejected',
  /** Observable gauge of calls waiting for an upstream slot, attribute `upstream`. */
  queued: 'switchyard.ratelimit.queued',
} as const;
