/** 5a/5c: reads through one vs two replicas sharing the cache plugin's second level, behind HAProxy. */
import { Agent } from 'node:http';
import { LegacyHttpClient, ModernHttpClient, type RequestClient } from '@switchyard/testkit/mcp';
import {
  counters,
  type Gateway,
  type Log,
  type PluginEntry,
  replicaConfig,
  Scope,
  warningsOf,
} from '../harness.js';
import { measureReadPaths, type ReadPath, readPath } from '../read-paths.js';
import type { Sizes } from '../sizes.js';
import { deploy, listedUris, redisClients } from './deploy.js';

type Config = Sizes['replicas'];

const CACHE: PluginEntry[] = [['@switchyard/plugin-cache', {}]];

/** 5a/5c: a 5 ms upstream, a no-store gateway and replicas A and B, all with the cache plugin. */
export const deploySharedCache = (config: Config) =>
  deploy(config, config.cacheUpstreamLatencyMs, (redis) => ({
    solo: { plugins: CACHE, name: 'gateway (solo, no store)' },
    a: { plugins: CACHE, name: 'replica A', config: replicaConfig(redis) },
    b: { plugins: CACHE, name: 'replica B', config: replicaConfig(redis) },
  }));

/** The shared-cache paths in their (rotated) round order, with their table labels. */
const SHARED_CACHE_PATHS = [
  { path: 'solo', label: '1 gateway, no store, direct' },
  { path: 'replica', label: 'replica A (store), direct' },
  { path: 'one', label: 'HAProxy → A (store)' },
  { path: 'two', label: 'HAProxy → A + B (store)' },
  { path: 'one-legacy', label: 'HAProxy → A, legacy session' },
  { path: 'two-legacy', label: 'HAProxy → A + B, legacy session' },
];

/**
 * Warms every gateway (A, then B: 0 upstream reads if B is served by the cache A filled, then the no-store
 * gateway, then all again), probes a legacy session through HAProxy → A + B (every other request lands on
 * the replica that does not own it), and measures; with working legacy sessions two more paths read on them.
 */
export async function runSharedCache(
  config: Config,
  d: Awaited<ReturnType<typeof deploySharedCache>>,
  log: Log,
) {
  const { redis, upstream, gateways, scope: part } = d;
  const { solo, a, b } = gateways;
  const [one, two] = await Promise.all([part.balancer([a.url]), part.balancer([a.url, b.url])]);
  log(
    `replicas/shared-cache: redis ${redis.url}, upstream ${upstream.url}, solo ${solo.url}, A ${a.url}, ` +
      `B ${b.url}, HAProxy → A ${one.mcpUrl}, HAProxy → A+B ${two.mcpUrl}`,
  );
  return Scope.with(async (scope) => {
    const agent = scope.own(new Agent({ keepAlive: true, maxSockets: 64 }));
    const uris = await listedUris(scope.own(new ModernHttpClient(a.url)), upstream, config.resources);
    const path = (
      name: string,
      url: string,
      gateways: Gateway[],
      balancer?: ReadPath['balancer'],
      client: RequestClient = scope.own(new ModernHttpClient(url)),
    ): ReadPath => ({ path: name, client, uris, gateways, balancer });
    const paths = [
      path('solo', solo.url, [solo]),
      path('replica', a.url, [a]),
      path('one', one.mcpUrl, [a], one),
      path('two', two.mcpUrl, [a, b], two),
    ];
    const [soloPath, replicaPath] = paths as [ReadPath, ReadPath];
    const onB = path('b', b.url, [b]);
    const stats = counters(upstream);
    const reads = async (target: ReadPath): Promise<number> => {
      const before = (await stats()).reads;
      await readPath(target, uris.length, 8, config.payloadBytes);
      return (await stats()).reads - before;
    };
    const warmReadsA = await reads(replicaPath);
    const secondReplicaUpstreamReads = await reads(onB);
    const warmReadsSolo = await reads(soloPath);
    let rehitUpstreamReads = 0;
    for (const target of [replicaPath, onB, soloPath]) rehitUpstreamReads += await reads(target);
    log(
      `replicas/shared-cache: warming: A read ${warmReadsA} upstream, then B ${secondReplicaUpstreamReads} ` +
        `(0 = served from the shared cache), solo ${warmReadsSolo}; second pass ${rehitUpstreamReads}`,
    );
    const legacy = { reads: 4, ok: 0, opened: false, firstError: undefined as string | undefined };
    try {
      // One socket: `initialize` and `notifications/initialized` land on different replicas.
      const one = scope.own(new Agent({ keepAlive: true, maxSockets: 1 }));
      const probe = scope.own(
        await LegacyHttpClient.open(two.mcpUrl, { agent: one, clientName: 'bench-legacy-probe' }),
      );
      legacy.opened = true;
      for (let i = 0; i < legacy.reads; i++) {
        try {
          await probe.request({ method: 'resources/read', params: { uri: uris[i % uris.length]! } });
          legacy.ok += 1;
        } catch (error) {
          legacy.firstError ??= (error as Error).message;
        }
      }
    } catch (error) {
      legacy.firstError ??= `opening: ${(error as Error).message}`;
    }
    log(`replicas/shared-cache: a legacy session through HAProxy → A+B: ${JSON.stringify(legacy)}`);
    if (legacy.opened && legacy.ok === legacy.reads) {
      for (const [name, balancer, gateways] of [
        ['one-legacy', one, [a]],
        ['two-legacy', two, [a, b]],
      ] as const) {
        const session = await LegacyHttpClient.open(balancer.mcpUrl, { agent, clientName: `bench-${name}` });
        paths.push(path(name, balancer.mcpUrl, [...gateways], balancer, scope.own(session)));
      }
    }
    const levels = await measureReadPaths({
      what: 'replicas/shared-cache',
      paths,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream,
      redis,
      pairs: [
        ['two', 'one'],
        ['two', 'solo'],
        ['replica', 'solo'],
        ['one', 'replica'],
        ['two-legacy', 'one-legacy'],
        ['two-legacy', 'two'],
      ],
      log,
    });
    return {
      plugins: CACHE,
      paths: SHARED_CACHE_PATHS,
      warmReadsA,
      secondReplicaUpstreamReads,
      warmReadsSolo,
      rehitUpstreamReads,
      legacy,
      redisClients: await redisClients(redis.url),
      levels,
      gatewayWarnings: warningsOf({ solo, A: a, B: b }),
    };
  });
}
