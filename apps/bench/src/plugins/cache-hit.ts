import { type BenchClient, closeAll, connectPair, type RunOptions } from '../client.js';
import { checkedUris } from '../read.js';
import {
  hitCeiling,
  measureReadPaths,
  profiledAs,
  type ReadPath,
  statsOf,
  upstreamCounters,
} from '../read-paths.js';
import { readLoop } from '../requests.js';
import { type Gateway, type PluginEntry, startGateway, startUpstream, type Upstream } from '../services.js';
import type { CacheHitConfig, CacheHitResult } from './model.js';

/** a. Cache hits through the gateway vs reads straight from a slow upstream. */
export async function runCacheHitBenchmark(
  config: CacheHitConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<CacheHitResult> {
  let upstream: Upstream | undefined;
  let gateway: Gateway | undefined;
  const clients: BenchClient[] = [];
  const plugins: PluginEntry[] = [['@switchyard/plugin-cache', {}]];
  try {
    upstream = await startUpstream({
      name: 'a',
      resources: config.resources,
      payloadBytes: config.payloadBytes,
      latencyMs: config.latencyMs,
    });
    gateway = await startGateway([upstream], profiledAs(options, 'cache-hit', plugins));
    log(
      `plugins/cache-hit: upstream ${upstream.url} (${config.latencyMs} ms per read), gateway ${gateway.url}`,
    );
    const { direct, viaGateway } = await connectPair(
      upstream.url,
      gateway.url,
      'bench-cache',
      options,
      clients,
    );
    const { directUris, gatewayUris } = await checkedUris(
      direct.client,
      viaGateway.client,
      upstream.name,
      config.resources,
    );

    // Warm: every URI once through the gateway (each a miss), then once more (each must be a hit).
    const stats = statsOf(upstream);
    const before = await upstreamCounters(stats);
    await readLoop(viaGateway.client, gatewayUris, gatewayUris.length, 1, config.payloadBytes);
    const warmed = await upstreamCounters(stats);
    const warmUpstreamReads = warmed.reads - before.reads;
    if (warmUpstreamReads !== config.resources) {
      throw new Error(
        `plugins/cache-hit: warming read ${config.resources} URIs once through the cache, but the upstream ` +
          `served ${warmUpstreamReads} resources/read (expected ${config.resources})`,
      );
    }
    await readLoop(viaGateway.client, gatewayUris, gatewayUris.length, 1, config.payloadBytes);
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
      { path: 'direct', client: direct.client, uris: directUris, upstreamReadsPerRead: 1, next: 0 },
      {
        path: 'cache',
        client: viaGateway.client,
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
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await upstream?.proc.stop();
  }
}
