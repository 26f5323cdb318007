import { type RunOptions, withGatewayPair } from '../client.js';
import { checkedListing, RESOURCES } from '../lists.js';
import {
  hitCeiling,
  measureReadPaths,
  profiledAs,
  type ReadPath,
  statsOf,
  upstreamCounters,
} from '../read-paths.js';
import { readLoop } from '../requests.js';
import type { PluginEntry } from '../services.js';
import type { CacheHitConfig } from './model.js';

/** a. Cache hits through the gateway vs reads straight from a slow upstream. */
export function runCacheHitBenchmark(
  config: CacheHitConfig,
  log: (message: string) => void,
  options: RunOptions = {},
) {
  const plugins: PluginEntry[] = [['@switchyard/plugin-cache', {}]];
  const spec = {
    name: 'a',
    resources: config.resources,
    payloadBytes: config.payloadBytes,
    latencyMs: config.latencyMs,
  };
  const pair = { ...options, gateway: profiledAs(options, 'cache-hit', plugins), clientName: 'bench-cache' };
  return withGatewayPair(spec, pair, async ({ upstream, gateway, direct, viaGateway }) => {
    log(
      `plugins/cache-hit: upstream ${upstream.url} (${config.latencyMs} ms per read), gateway ${gateway.url}`,
    );
    const listed = await checkedListing(RESOURCES, direct, viaGateway, upstream.name, config.resources);
    const gatewayUris = listed.exposed;

    // Warm: every URI once through the gateway (each a miss), then once more (each must be a hit).
    const stats = statsOf(upstream);
    const before = await upstreamCounters(stats);
    await readLoop(viaGateway, gatewayUris, gatewayUris.length, 1, config.payloadBytes);
    const warmed = await upstreamCounters(stats);
    const warmUpstreamReads = warmed.reads - before.reads;
    if (warmUpstreamReads !== config.resources) {
      throw new Error(
        `plugins/cache-hit: warming read ${config.resources} URIs once through the cache, but the upstream ` +
          `served ${warmUpstreamReads} resources/read (expected ${config.resources})`,
      );
    }
    await readLoop(viaGateway, gatewayUris, gatewayUris.length, 1, config.payloadBytes);
    const rehit = (await upstreamCounters(stats)).reads - warmed.reads;
    if (rehit !== 0) {
      throw new Error(
        `plugins/cache-hit: the cache is not hitting: re-reading the ${config.resources} warmed URIs ` +
          `made the upstream serve ${rehit} resources/read (expected 0)`,
      );
    }
    log(
      `plugins/cache-hit: warmed ${config.resources} URIs (${warmUpstreamReads} upstream reads, ` +
        `${warmed.subscribes - before.subscribes} subscriptions); a second pass was all hits`,
    );

    const paths: ReadPath[] = [
      { path: 'direct', client: direct, uris: listed.items, upstreamReadsPerRead: 1, next: 0 },
      {
        path: 'cache',
        client: viaGateway,
        uris: gatewayUris,
        gateways: [gateway.proc],
        upstreamReadsPerRead: 0,
        next: 0,
      },
    ];
    const levels = await measureReadPaths({
      what: 'plugins/cache-hit',
      paths,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream,
      pairs: [['cache', 'direct']],
      log,
    });
    return {
      config,
      plugins,
      warmUpstreamReads,
      levels,
      ceilings: levels.flatMap((level) => hitCeiling(level) ?? []),
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  });
}
