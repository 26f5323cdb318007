/**
 * Read benchmark: `resources/read` throughput and latency, direct to one testkit upstream vs through the
 * gateway fronting it, over Streamable HTTP, interleaved rounds, median round reported.
 */
import type { Client } from '@modelcontextprotocol/client';
import { type BenchClient, closeAll, connectPair, REQUEST_OPTIONS, type RunOptions } from './client.js';
import { RESOURCES, walk } from './lists.js';
import { interleavedRounds, type ReadLevel, requestLoop, type TimedLoop } from './rounds.js';
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
 * Issues `count` reads over `uris` (round-robin) with `concurrency` workers sharing one client, timing
 * each request with hrtime. Every response is checked (one content, the requested uri, a text body).
 */
export function readLoop(
  client: Client,
  uris: readonly string[],
  count: number,
  concurrency: number,
  minBytes: number,
): Promise<TimedLoop> {
  return requestLoop(
    count,
    concurrency,
    (i) =>
      client.request({ method: 'resources/read', params: { uri: uris[i % uris.length]! } }, REQUEST_OPTIONS),
    (i, result) => {
      const uri = uris[i % uris.length]!;
      const content = result.contents[0];
      if (result.contents.length !== 1 || content?.uri !== uri || !('text' in content)) {
        throw new Error(
          `unexpected resources/read result for ${uri}: ${JSON.stringify(result).slice(0, 300)}`,
        );
      }
      if (content.text.length < minBytes) {
        throw new Error(`resources/read ${uri}: ${content.text.length} chars, expected ≥ ${minBytes}`);
      }
    },
  );
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
