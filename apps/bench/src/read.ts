/**
 * Read benchmark: `resources/read` throughput and latency, direct to one testkit upstream vs through the
 * gateway fronting it, over Streamable HTTP, interleaved rounds, median round reported.
 */
import { type RunOptions, withGatewayPair } from './client.js';
import { checkedListing, RESOURCES } from './lists.js';
import { type Requester, readLoop } from './requests.js';
import { interleavedRounds, type ReadLevel } from './rounds.js';

export interface ReadConfig {
  resources: number;
  payloadBytes: number;
  warmup: number;
  reads: number;
  concurrencies: number[];
  rounds: number;
}

export interface ReadResult {
  config: ReadConfig;
  levels: ReadLevel[];
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
}

export function runReadBenchmark(
  config: ReadConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<ReadResult> {
  const spec = { name: 'a', resources: config.resources, payloadBytes: config.payloadBytes };
  return withGatewayPair(spec, options, async ({ upstream, gateway, direct, viaGateway }) => {
    log(`read: upstream ${upstream.url}, gateway ${gateway.url}`);
    const { items, exposed } = await checkedListing(
      RESOURCES,
      direct,
      viaGateway,
      upstream.name,
      config.resources,
    );
    const loop = (client: Requester, uris: string[]) => (count: number, concurrency: number) =>
      readLoop(client, uris, count, concurrency, config.payloadBytes);
    const levels = await interleavedRounds({
      plan: {
        what: 'read',
        warmup: config.warmup,
        count: config.reads,
        concurrencies: config.concurrencies,
        rounds: config.rounds,
      },
      loops: { direct: loop(direct, items), gateway: loop(viaGateway, exposed) },
      cpu: { upstream: upstream.proc, gateway: gateway.proc },
      log,
    });
    return { config, levels, gatewayWarnings: Object.fromEntries(gateway.proc.warnings) };
  });
}
