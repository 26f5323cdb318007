/**
 * c. The secrets plugin's cost per tool call: one testkit upstream with one echo tool (it answers with
 * its arguments twice, as `structuredContent` and as its text), a bare gateway vs a gateway whose only
 * plugin is `@switchyard/plugin-secrets` with its defaults (arguments and results scanned, redact), one
 * call at a time. The argument text is sized so that the result is about 1 KiB, then about 1 MiB: with
 * the defaults the plugin scans the arguments (half the result) on the way in and the whole result on
 * the way out. Interleaved rounds (bare first in even rounds), median round by calls/s; every answer is
 * checked (the echo, unredacted: the filler holds no credential) and the upstream's `tools/call` counter
 * must move by one per call issued.
 */
import type { Client } from '@modelcontextprotocol/client';
import { controlClient } from '@switchyard/testkit';
import { type BenchClient, closeAll, connectClient, REQUEST_OPTIONS, type RunOptions } from '../client.js';
import type { CpuPerRead } from '../rounds.js';
import { cpuSampler, requestLoop } from '../rounds.js';
import { type Gateway, type PluginEntry, startGateway, startUpstream, type Upstream } from '../services.js';
import type { LatencySummary } from '../stats.js';
import { medianBy, summarize } from '../stats.js';
import { profiledAs } from './measure.js';
import type { Comparison } from './model.js';

export interface SecretsSizeConfig {
  /** The size of the echo's result to aim for, in bytes (the argument text is about half of it). */
  resultBytes: number;
  warmup: number;
  calls: number;
}

export interface SecretsConfig {
  sizes: SecretsSizeConfig[];
  rounds: number;
}

export type SecretsPath = 'bare' | 'secrets';

export interface SecretsRun extends LatencySummary {
  path: SecretsPath;
  round: number;
  wallMs: number;
  rps: number;
  cpuUsPerRead: CpuPerRead;
}

export interface SecretsSize {
  resultBytes: number;
  /** The encoded size of one result as the client received it. */
  measuredResultBytes: number;
  medians: Record<SecretsPath, SecretsRun>;
  comparison: Comparison;
  rounds: SecretsRun[];
}

export interface SecretsResult {
  config: SecretsConfig;
  plugins: PluginEntry[];
  sizes: SecretsSize[];
  upstreamCalls: { issued: number; served: number };
  gatewayWarnings: Record<SecretsPath, Record<string, number>>;
}

const TOOL = 'a__tool_0';

function filler(chars: number): string {
  return 'lorem ipsum dolor sit amet '.repeat(Math.ceil(chars / 27)).slice(0, chars);
}

function callLoop(client: Client, text: string, count: number) {
  return requestLoop(
    count,
    1,
    (i) =>
      client.request(
        { method: 'tools/call', params: { name: TOOL, arguments: { text, seq: i } } },
        REQUEST_OPTIONS,
      ) as Promise<unknown> as Promise<Record<string, unknown>>,
    (i, result) => {
      const structured = result.structuredContent as
        | { arguments?: { text?: string; seq?: number } }
        | undefined;
      if (structured?.arguments?.text !== text || structured.arguments.seq !== i) {
        throw new Error(
          `secrets bench: tools/call seq ${i} answered ${JSON.stringify(result).slice(0, 200)}`,
        );
      }
    },
  );
}

export async function runSecretsBenchmark(
  config: SecretsConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<SecretsResult> {
  const plugins: PluginEntry[] = [['@switchyard/plugin-secrets', {}]];
  let upstream: Upstream | undefined;
  const gateways: Partial<Record<SecretsPath, Gateway>> = {};
  const clients: BenchClient[] = [];
  try {
    upstream = await startUpstream({ name: 'a', resources: 0, tools: 1 });
    if (!upstream.controlUrl)
      throw new Error('the testkit upstream printed no controlUrl: cannot count calls');
    const control = controlClient(upstream.controlUrl);
    const served = async () => (await control.stats()).requests['tools/call'] ?? 0;
    gateways.bare = await startGateway([upstream], profiledAs(options, 'secrets-bare', []));
    gateways.secrets = await startGateway([upstream], profiledAs(options, 'secrets', plugins));
    const connect = async (path: SecretsPath) => {
      const bench = await connectClient(gateways[path]!.url, `bench-${path}`, options);
      clients.push(bench);
      return bench.client;
    };
    const client: Record<SecretsPath, Client> = {
      bare: await connect('bare'),
      secrets: await connect('secrets'),
    };
    const upstreamCalls = { issued: 0, served: 0 };
    const sizes: SecretsSize[] = [];
    for (const size of config.sizes) {
      const text = filler(Math.floor(size.resultBytes / 2) - 64);
      const sample = await client.secrets.request({
        method: 'tools/call',
        params: { name: TOOL, arguments: { text, seq: 0 } },
      });
      const measuredResultBytes = Buffer.byteLength(JSON.stringify(sample));
      upstreamCalls.issued += 1;
      const rounds: SecretsRun[] = [];
      for (let round = 0; round < config.rounds; round++) {
        const order: SecretsPath[] = round % 2 === 0 ? ['bare', 'secrets'] : ['secrets', 'bare'];
        for (const path of order) {
          const before = await served();
          await callLoop(client[path], text, size.warmup);
          const cpu = cpuSampler(upstream.proc, gateways[path]!.proc)();
          const { latencies, wallMs } = await callLoop(client[path], text, size.calls);
          const run: SecretsRun = {
            path,
            round,
            wallMs,
            rps: (size.calls / wallMs) * 1000,
            cpuUsPerRead: cpu(size.calls),
            ...summarize(latencies),
          };
          rounds.push(run);
          const issued = size.warmup + size.calls;
          const calls = (await served()) - before;
          upstreamCalls.issued += issued;
          if (calls !== issued) {
            throw new Error(
              `secrets bench: ${path} round ${round + 1}: the upstream served ${calls} calls for ${issued}`,
            );
          }
          log(
            `secrets ${size.resultBytes} B round ${round + 1}/${config.rounds} ${path.padEnd(8)} ` +
              `${run.rps.toFixed(0)} calls/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms`,
          );
        }
      }
      const median = (path: SecretsPath) =>
        medianBy(
          rounds.filter((r) => r.path === path),
          (r) => r.rps,
        );
      const medians = { bare: median('bare'), secrets: median('secrets') };
      sizes.push({
        resultBytes: size.resultBytes,
        measuredResultBytes,
        medians,
        comparison: {
          path: 'secrets',
          baseline: 'bare',
          throughputRatio: medians.secrets.rps / medians.bare.rps,
          addedP50Ms: medians.secrets.p50 - medians.bare.p50,
          addedP99Ms: medians.secrets.p99 - medians.bare.p99,
        },
        rounds,
      });
    }
    upstreamCalls.served = await served();
    return {
      config,
      plugins,
      sizes,
      upstreamCalls,
      gatewayWarnings: {
        bare: Object.fromEntries(gateways.bare.proc.warnings),
        secrets: Object.fromEntries(gateways.secrets.proc.warnings),
      },
    };
  } finally {
    await closeAll(clients);
    await gateways.bare?.proc.stop();
    await gateways.secrets?.proc.stop();
    await upstream?.proc.stop();
  }
}
