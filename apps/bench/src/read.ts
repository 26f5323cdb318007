/**
 * Read benchmark: `resources/read` throughput and latency, direct to one testkit upstream vs through the
 * gateway fronting it, over Streamable HTTP, interleaved rounds, median round reported.
 */
import type { Client } from '@modelcontextprotocol/client';
import { type BenchClient, closeAll, connectClient, REQUEST_OPTIONS, type RunOptions } from './client.js';
import {
  cpuTimeMs,
  type Gateway,
  type ManagedProcess,
  startGateway,
  startUpstream,
  type Upstream,
} from './procs.js';
import { type LatencySummary, medianBy, msSince, summarize } from './stats.js';

export interface ReadConfig {
  resources: number;
  payloadBytes: number;
  warmup: number;
  reads: number;
  concurrencies: number[];
  rounds: number;
}

export type Path = 'direct' | 'gateway';

/** CPU time spent per read (µs, user + system) by each process during the timed part of a round. */
export interface CpuPerRead {
  client: number;
  upstream?: number;
  gateway?: number;
}

export interface ReadRun extends LatencySummary {
  path: Path;
  round: number;
  concurrency: number;
  wallMs: number;
  rps: number;
  cpuUsPerRead: CpuPerRead;
}

/**
 * Samples the CPU time of this process and the children, to split a round's cost between them (no
 * gateway: `gateway` stays undefined in the result).
 */
export function cpuSampler(
  upstream: ManagedProcess,
  gateway: ManagedProcess | undefined,
): () => (reads: number) => CpuPerRead {
  return () => {
    const client = process.cpuUsage();
    const up = cpuTimeMs(upstream);
    const gw = gateway && cpuTimeMs(gateway);
    return (reads) => {
      const c = process.cpuUsage(client);
      const perRead = (before: number | undefined, after: number | undefined): number | undefined =>
        before === undefined || after === undefined ? undefined : ((after - before) * 1000) / reads;
      return {
        client: (c.user + c.system) / reads,
        upstream: perRead(up, cpuTimeMs(upstream)),
        gateway: gateway && perRead(gw, cpuTimeMs(gateway)),
      };
    };
  };
}

export interface ReadLevel {
  concurrency: number;
  /** The median round (by req/s) of each path. */
  direct: ReadRun;
  gateway: ReadRun;
  /** gateway req/s ÷ direct req/s. */
  throughputRatio: number;
  addedP50Ms: number;
  addedP99Ms: number;
  rounds: ReadRun[];
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
export async function readLoop(
  client: Client,
  uris: readonly string[],
  count: number,
  concurrency: number,
  minBytes: number,
): Promise<{ latencies: Float64Array; wallMs: number }> {
  const latencies = new Float64Array(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const uri = uris[i % uris.length]!;
      const start = process.hrtime.bigint();
      const result = await client.request({ method: 'resources/read', params: { uri } }, REQUEST_OPTIONS);
      latencies[i] = msSince(start);
      const content = result.contents[0];
      if (result.contents.length !== 1 || content?.uri !== uri || !('text' in content)) {
        throw new Error(
          `unexpected resources/read result for ${uri}: ${JSON.stringify(result).slice(0, 300)}`,
        );
      }
      if (content.text.length < minBytes) {
        throw new Error(`resources/read ${uri}: ${content.text.length} chars, expected ≥ ${minBytes}`);
      }
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { latencies, wallMs: msSince(start) };
}

export async function listAll(client: Client): Promise<string[]> {
  const uris: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: 'resources/list', params: cursor ? { cursor } : {} },
      REQUEST_OPTIONS,
    );
    for (const r of page.resources) uris.push(r.uri);
    cursor = page.nextCursor;
  } while (cursor);
  return uris;
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
  const directUris = await listAll(direct);
  const gatewayUris = await listAll(viaGateway);
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
    const direct = await connectClient(upstream.url, 'bench-direct', options);
    clients.push(direct);
    const viaGateway = await connectClient(gateway.url, 'bench-gateway', options);
    clients.push(viaGateway);

    const { directUris, gatewayUris } = await checkedUris(
      direct.client,
      viaGateway.client,
      upstream.name,
      config.resources,
    );
    const targets: Record<Path, { client: Client; uris: string[] }> = {
      direct: { client: direct.client, uris: directUris },
      gateway: { client: viaGateway.client, uris: gatewayUris },
    };

    const sampleCpu = cpuSampler(upstream.proc, gateway.proc);
    const levels: ReadLevel[] = [];
    for (const concurrency of config.concurrencies) {
      const rounds: ReadRun[] = [];
      for (let round = 0; round < config.rounds; round++) {
        // Alternate which path goes first (ABBA…) so neither always runs on a warmer/cooler box.
        const order: Path[] = round % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct'];
        for (const path of order) {
          const { client, uris } = targets[path];
          await readLoop(client, uris, config.warmup, concurrency, config.payloadBytes);
          const cpu = sampleCpu();
          const { latencies, wallMs } = await readLoop(
            client,
            uris,
            config.reads,
            concurrency,
            config.payloadBytes,
          );
          const run: ReadRun = {
            path,
            round,
            concurrency,
            wallMs,
            rps: (config.reads / wallMs) * 1000,
            cpuUsPerRead: cpu(config.reads),
            ...summarize(latencies),
          };
          rounds.push(run);
          log(
            `read c=${concurrency} round ${round + 1}/${config.rounds} ${path.padEnd(7)} ` +
              `${run.rps.toFixed(0)} req/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms`,
          );
        }
      }
      const d = medianBy(
        rounds.filter((r) => r.path === 'direct'),
        (r) => r.rps,
      );
      const g = medianBy(
        rounds.filter((r) => r.path === 'gateway'),
        (r) => r.rps,
      );
      levels.push({
        concurrency,
        direct: d,
        gateway: g,
        throughputRatio: g.rps / d.rps,
        addedP50Ms: g.p50 - d.p50,
        addedP99Ms: g.p99 - d.p99,
        rounds,
      });
    }
    return { config, levels, gatewayWarnings: Object.fromEntries(gateway.proc.warnings) };
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await upstream?.proc.stop();
  }
}
