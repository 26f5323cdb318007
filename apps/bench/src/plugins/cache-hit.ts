import { availableParallelism } from 'node:os';
import { counters, type Log, type PluginEntry, type RunOptions, Scope } from '../harness.js';
import { checkedListing } from '../lists.js';
import { readLoop } from '../measure.js';
import { measureReadPaths, type ReadPathLevel } from '../read-paths.js';
import { comparedSection, planLine } from '../report/format.js';
import type { Sizes } from '../sizes.js';

/**
 * The most hits per second this box can serve at one concurrency: each hit costs the client and the
 * gateway CPU (median round), so `cores` give at most `cores × 1e6 ÷ (client + gateway µs)` reads per
 * second; `ratio` is that ÷ the direct path's req/s.
 */
function hitCeiling(level: ReadPathLevel) {
  const { cache: hit, direct } = level.medians;
  const gatewayUs = hit?.cpuUsPerRead.gateway;
  if (!hit || !direct || gatewayUs === undefined) return [];
  const cores = availableParallelism();
  const rps = (cores * 1e6) / (hit.cpuUsPerRead.client + gatewayUs);
  const clientUs = hit.cpuUsPerRead.client;
  return [{ concurrency: level.concurrency, cores, clientUs, gatewayUs, rps, ratio: rps / direct.rps }];
}

/** a. Cache hits through the gateway vs reads straight from a slow upstream. */
export function runCacheHitBenchmark(config: Sizes['plugins']['hit'], log: Log, options: RunOptions = {}) {
  const plugins: PluginEntry[] = [['@switchyard/plugin-cache', {}]];
  return Scope.with(async (scope) => {
    const { resources, payloadBytes, latencyMs } = config;
    const upstream = await scope.upstream({ name: 'a', resources, payloadBytes, latencyMs });
    const gateway = (await scope.pluginGateways([upstream], { 'cache-hit': plugins }, options))['cache-hit'];
    const direct = await scope.client(upstream.url, 'bench-direct', options);
    const viaGateway = await scope.client(gateway.url, 'bench-cache', options);
    log(`plugins/cache-hit: upstream ${upstream.url} (${latencyMs} ms per read), gateway ${gateway.url}`);
    const listed = await checkedListing('resources', direct, viaGateway, upstream.name, resources);

    // Warm: every URI once through the gateway (each a miss), then once more (each must be a hit).
    const stats = counters(upstream);
    const pass = async () => {
      const before = await stats();
      await readLoop(viaGateway, listed.exposed, resources, 1, payloadBytes);
      return (await stats()).reads - before.reads;
    };
    const warmUpstreamReads = await pass();
    const rehit = await pass();
    if (warmUpstreamReads !== resources || rehit !== 0) {
      throw new Error(
        `plugins/cache-hit: reading the ${resources} URIs twice through the cache made the upstream serve ` +
          `${warmUpstreamReads} then ${rehit} resources/read (expected ${resources}, then 0)`,
      );
    }
    log(`plugins/cache-hit: warmed ${resources} URIs; a second pass was all hits`);

    const levels = await measureReadPaths({
      what: 'plugins/cache-hit',
      paths: [
        { path: 'direct', client: direct, uris: listed.items, upstreamReadsPerRead: 1 },
        {
          path: 'cache',
          client: viaGateway,
          uris: listed.exposed,
          gateways: [gateway],
          upstreamReadsPerRead: 0,
        },
      ],
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes,
      upstream,
      pairs: [['cache', 'direct']],
      log,
    });
    return {
      config,
      plugins,
      warmUpstreamReads,
      levels,
      ceilings: levels.flatMap(hitCeiling),
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  });
}

export type CacheHitResult = Awaited<ReturnType<typeof runCacheHitBenchmark>>;

export function renderCacheHit(hit: CacheHitResult): string[] {
  const c = hit.config;
  return comparedSection(
    `3a. Cache hits vs direct — 1 testkit upstream (${c.resources} resources, ${c.payloadBytes} B payload, ` +
      `${c.latencyMs} ms per read); gateway with @switchyard/plugin-cache (defaults)`,
    planLine('reads', c.levels, c.rounds),
    hit.levels,
    {
      paths: [
        { path: 'direct', label: 'direct' },
        { path: 'cache', label: 'gateway + cache (hits)' },
      ],
    },
    [
      `   checked: warming read each of the ${c.resources} URIs once upstream (${hit.warmUpstreamReads} upstream ` +
        'reads, then a second pass with none); the upstream served 0 reads during every gateway round, i.e. ' +
        'every timed gateway read was a hit.',
    ],
  );
}
