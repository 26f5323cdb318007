/**
 * `tools/call` benchmark: the read benchmark's method (rounds.ts: interleaved rounds, median round, c=1 and
 * c=16) applied to tool calls, direct to one testkit upstream with a handful of echo tools vs through the
 * gateway fronting it (which routes `a__tool_<k>` to the upstream's `tool_<k>` by its name index).
 *
 * Each call sends a small argument payload and a sequence number, and every answer is checked: the echo
 * tool returns `{ tool, arguments }` as `structuredContent` and as its one text content, so a call answered
 * by the wrong tool, with the wrong arguments or for another request fails the bench. The upstream's own
 * `tools/call` counter (testkit control API) must also move by exactly one per call issued in every round.
 */
import type { Client } from '@modelcontextprotocol/client';
import { controlClient } from '@switchyard/testkit';
import { type BenchClient, closeAll, connectPair, type RunOptions } from './client.js';
import { TOOLS, walk } from './lists.js';
import { callLoop, filler } from './requests.js';
import { interleavedRounds, type ReadLevel } from './rounds.js';
import { type Gateway, startGateway, startUpstream, type Upstream } from './services.js';

export interface ToolCallConfig {
  /** Echo tools on the upstream (`tool_0 … tool_{N-1}`), called round-robin. */
  tools: number;
  /** Length of the `text` argument of every call (plus a small `seq` number). */
  argumentBytes: number;
  warmup: number;
  calls: number;
  concurrencies: number[];
  rounds: number;
}

export interface ToolCallResult {
  config: ToolCallConfig;
  levels: ReadLevel[];
  /** Calls issued over every round (warm-ups included) and the upstream's `tools/call` count over them. */
  upstreamCalls: { issued: number; served: number };
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
}

const UPSTREAM = 'a';

/** Checks both listings: the upstream's `tool_0 … tool_{N-1}`, and the same as `a__tool_<k>` through the gateway. */
async function checkedToolNames(direct: Client, viaGateway: Client, tools: number) {
  const directNames = (await walk(direct, TOOLS)).items;
  const gatewayNames = (await walk(viaGateway, TOOLS)).items;
  const expectDirect = Array.from({ length: tools }, (_, i) => TOOLS.direct(UPSTREAM, i));
  const expectGateway = Array.from({ length: tools }, (_, i) => TOOLS.exposed(UPSTREAM, i));
  if (
    directNames.join(',') !== expectDirect.join(',') ||
    gatewayNames.join(',') !== expectGateway.join(',')
  ) {
    throw new Error(
      `tools/list does not match: upstream [${directNames.join(', ')}], gateway [${gatewayNames.join(', ')}]; ` +
        `expected [${expectDirect.join(', ')}] and [${expectGateway.join(', ')}]`,
    );
  }
  return { directNames, gatewayNames };
}

export async function runToolCallBenchmark(
  config: ToolCallConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<ToolCallResult> {
  let upstream: Upstream | undefined;
  let gateway: Gateway | undefined;
  const clients: BenchClient[] = [];
  try {
    upstream = await startUpstream({ name: UPSTREAM, resources: 0, tools: config.tools });
    if (!upstream.controlUrl)
      throw new Error('the testkit upstream printed no controlUrl: cannot count calls');
    const control = controlClient(upstream.controlUrl);
    const served = async () => (await control.stats()).requests['tools/call'] ?? 0;
    gateway = await startGateway([upstream], options);
    log(`tools/call: upstream ${upstream.url} (${config.tools} echo tools), gateway ${gateway.url}`);
    const { direct, viaGateway } = await connectPair(
      upstream.url,
      gateway.url,
      'bench-gateway',
      options,
      clients,
    );
    const { directNames, gatewayNames } = await checkedToolNames(
      direct.client,
      viaGateway.client,
      config.tools,
    );

    const text = filler(config.argumentBytes);
    const loop = (client: Client, names: string[]) => (count: number, concurrency: number) =>
      callLoop(client, { tools: names, upstreamTools: directNames }, text, count, concurrency);
    const upstreamCalls = { issued: 0, served: 0 };
    let before = 0;
    const levels = await interleavedRounds({
      plan: {
        what: 'tools/call',
        warmup: config.warmup,
        count: config.calls,
        concurrencies: config.concurrencies,
        rounds: config.rounds,
      },
      loops: { direct: loop(direct.client, directNames), gateway: loop(viaGateway.client, gatewayNames) },
      cpu: { upstream: upstream.proc, gateway: gateway.proc },
      log,
      beforeRound: async () => {
        before = await served();
      },
      afterRound: async (run, issued) => {
        const calls = (await served()) - before;
        upstreamCalls.issued += issued;
        upstreamCalls.served += calls;
        if (calls !== issued) {
          throw new Error(
            `tools/call ${run.path} c=${run.concurrency} round ${run.round + 1}: the upstream served ${calls} ` +
              `tools/call for ${issued} calls issued; expected exactly one each`,
          );
        }
      },
    });
    return { config, levels, upstreamCalls, gatewayWarnings: Object.fromEntries(gateway.proc.warnings) };
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await upstream?.proc.stop();
  }
}
