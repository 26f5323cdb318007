/**
 * Plugins benchmark: what the first-party plugins buy and cost, over Streamable HTTP, against testkit
 * upstreams in their own processes, with interleaved rounds and the median round reported (as
 * direct-vs-gateway.ts).
 *
 * a. Cache hit vs direct: an upstream that answers every read after a fixed latency (testkit
 *    `--latency-ms`, like a remote server), read directly and through a gateway whose only plugin is
 *    `@switchyard/plugin-cache` (defaults). The cache is warmed (every URI read once through the gateway)
 *    before timing, and every gateway round is checked against the upstream's own request counter
 *    (testkit control API, `GET /control/stats`): the upstream must serve no `resources/read` at all
 *    during a gateway round, or the bench fails.
 * b. The full stack on a miss: a 0 ms upstream, a bare gateway (no plugins) vs gateways with audit →
 *    rate-limit → access → cache (outermost first), once with the cache's defaults (coherent) and once
 *    with `coherent: false`. The limits are far above the load and the one deny rule matches nothing, so
 *    nothing is refused; the cache holds far fewer entries than there are resources and every path reads
 *    round-robin (continuing where its last loop stopped), so its LRU never hits. Every round is checked
 *    against the upstream's counter (one upstream read per read issued), and at the end the audit files
 *    must hold one `resources/read` record per read issued, each with cache status `miss`.
 * c. The governance plugins' cost per tool call (secrets, pin, approve, access, each alone vs a bare
 *    gateway) on ~1 KiB and ~1 MiB results (governance.ts).
 */
export { runCacheHitBenchmark } from './cache-hit.js';
export {
  GOVERNANCE_PLUGINS,
  type GovernancePlugin,
  type GovernanceResult,
  runGovernanceBenchmark,
} from './governance.js';
export * from './model.js';
export { runStackBenchmark } from './stack.js';
