/**
 * Read benchmark: `resources/read` throughput and latency, direct to one testkit upstream vs through the
 * gateway fronting it, over Streamable HTTP, interleaved rounds, median round reported.
 */
import type { Client } from '@modelcontextprotocol/client';
import { type BenchClient, closeAll, connectPair, type RunOptions } from './client.js';
import { RESOURCES, walk } from './lists.js';
import { readLoop } from './requests.js';
import { interleavedRounds, type ReadLevel } from './rounds.js';
import { type Gateway, startGateway, startUpstream, type Upstream } from './services.js';

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

/**
 * Discovers the URIs each way and checks the gateway exposes exactly the upstream's `resources`
 * resources, prefixed with the upstream's name, in the same order.
 */
export async function checkedUris(
  direct: Client,
  viaGateway: Client,
  upstreamName: string,
  resources: number,
): Promise<{ directUris: string[]; gatewayUris: string[] }> {
  const directUris = (await walk(direct, RESOURCES)).items;
  const gatewayUris = (await walk(viaGateway, RESOURCES)).items;
  const expected = directUris.map((u) => `${upstreamName}+${u}`);
  if (directUris.length !== resources || gatewayUris.join('\n') !== expected.join('\n')) {
    throw new Error(
      `gateway listing does not match the upstream: upstream ${directUris.length} resources, gateway ` +
        `${gatewayUris.length} (first: ${gatewayUris.slice(0, 3).join(', ')})`,
    );
  }
  return { directUris, gatewayUris };
}

export async function runReadBenchmark(
  config: ReadConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<ReadResult> {
  let upstream: Upstream | undefined;
  let gateway: Gateway | undefined;
  const clients: BenchClient[] = [];
  try {
    upstream = await startUpstream({
      name: 'a',
      resources: config.resources,
      payloadBytes: config.payloadBytes,
    });
    gateway = await startGateway([upstream], options);
    log(`read: upstream ${upstream.url}, gateway ${gateway.url}`);
    const { direct, viaGateway } = await connectPair(
      upstream.url,
      gateway.url,
      'bench-gateway',
      options,
      clients,
    );

    const { directUris, gatewayUris } = await checkedUris(
      direct.client,
      viaGateway.client,
      upstream.name,
      config.resources,
    );
    const loop = (client: Client, uris: string[]) => (count: number, concurrency: number) =>
      readLoop(client, uris, count, concurrency, config.payloadBytes);
    const levels = await interleavedRounds({
      plan: {
        what: 'read',
        warmup: config.warmup,
        count: config.reads,
        concurrencies: config.concurrencies,
        rounds: config.rounds,
      },
      loops: { direct: loop(direct.client, directUris), gateway: loop(viaGateway.client, gatewayUris) },
      cpu: { upstream: upstream.proc, gateway: gateway.proc },
      log,
    });
    return { config, levels, gatewayWarnings: Object.fromEntries(gateway.proc.warnings) };
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await upstream?.proc.stop();
  }
}
