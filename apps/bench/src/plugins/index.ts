/**
 * Section 3, what the first-party plugins buy and cost (README.md, section 3):
 * a. cache hits through a gateway with `@switchyard/plugin-cache` vs direct reads of a slow upstream; the
 *    upstream must serve no read at all during a gateway round;
 * b. audit → rate-limit → access → cache (coherent, then `coherent: false`) on cache misses vs a bare
 *    gateway; the upstream serves one read per read, and the audit files hold one `miss` record per read;
 * c. each governance plugin alone (secrets, pin, approve, access) per tool call vs a bare gateway, on
 *    ~1 KiB and ~1 MiB results; every answer the unredacted echo, one upstream call per call.
 */

export { type CacheHitResult, renderCacheHit, runCacheHitBenchmark } from './cache-hit.js';
export { renderGovernance, runGovernanceBenchmark } from './governance.js';
export { renderStack, runStackBenchmark } from './stack.js';
