/**
 * Sections 1 and 4a: one testkit upstream in its own process, read or called directly and through the
 * gateway fronting it, over Streamable HTTP, with the bench's method (rounds.ts: interleaved rounds, median
 * round, c=1 and c=16). Both listings are checked first (lists.ts `checkedListing`), and every answer after.
 *
 * 1. `resources/read` throughput and latency of the upstream's resources (~1 KiB each).
 * 4a. `tools/call` of a handful of echo tools (the gateway routes `a__tool_<k>` to the upstream's
 *    `tool_<k>` by its name index). Each call sends a small argument payload and a sequence number, and
 *    every answer is checked: the echo tool returns `{ tool, arguments }` as `structuredContent` and as its
 *    one text content, so a call answered by the wrong tool, with the wrong arguments or for another request
 *    fails the bench. The upstream's own `tools/call` counter (testkit control API) must also move by
 *    exactly one per call issued in every round.
 */
import type { ManagedProcess } from '@switchyard/testkit/process';
import { type RunOptions, withGatewayPair } from './client.js';
import { checkedListing, RESOURCES, TOOLS } from './lists.js';
import { statsOf, upstreamCounters } from './read-paths.js';
import { callLoop, filler, type Requester, readLoop } from './requests.js';
import { type ComparedLevel, measureCompared, type TimedLoop } from './rounds.js';

/** The upstream's name: the gateway exposes `a+<uri>` and `a__tool_<k>`. */
const UPSTREAM = 'a';

type Loop = (count: number, concurrency: number) => Promise<TimedLoop>;

/** The two variants, direct and through the gateway (whose CPU is read on its side only). */
function directAndGateway(
  direct: Loop,
  gateway: Loop,
  cpu: { upstream: ManagedProcess; gateway: ManagedProcess },
) {
  return [
    { name: 'direct', loop: direct, cpu: { upstream: cpu.upstream } },
    { name: 'gateway', loop: gateway, cpu },
  ];
}

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
  levels: ComparedLevel[];
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
}

export function runReadBenchmark(
  config: ReadConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<ReadResult> {
  const spec = { name: UPSTREAM, resources: config.resources, payloadBytes: config.payloadBytes };
  return withGatewayPair(spec, options, async ({ upstream, gateway, direct, viaGateway }) => {
    log(`read: upstream ${upstream.url}, gateway ${gateway.url}`);
    const { items, exposed } = await checkedListing(
      RESOURCES,
      direct,
      viaGateway,
      UPSTREAM,
      config.resources,
    );
    const loop = (client: Requester, uris: string[]) => (count: number, concurrency: number) =>
      readLoop(client, uris, count, concurrency, config.payloadBytes);
    const levels = await measureCompared({
      plan: {
        what: 'read',
        warmup: config.warmup,
        count: config.reads,
        concurrencies: config.concurrencies,
        rounds: config.rounds,
      },
      variants: directAndGateway(loop(direct, items), loop(viaGateway, exposed), {
        upstream: upstream.proc,
        gateway: gateway.proc,
      }),
      pairs: [['gateway', 'direct']],
      log,
    });
    return { config, levels, gatewayWarnings: Object.fromEntries(gateway.proc.warnings) };
  });
}

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
  levels: ComparedLevel[];
  /** Calls issued over every round (warm-ups included) and the upstream's `tools/call` count over them. */
  upstreamCalls: { issued: number; served: number };
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
}

export function runToolCallBenchmark(
  config: ToolCallConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<ToolCallResult> {
  const spec = { name: UPSTREAM, resources: 0, tools: config.tools };
  return withGatewayPair(spec, options, async ({ upstream, gateway, direct, viaGateway }) => {
    log(`tools/call: upstream ${upstream.url} (${config.tools} echo tools), gateway ${gateway.url}`);
    const stats = statsOf(upstream);
    const served = async () => (await upstreamCounters(stats)).calls;
    const { items, exposed } = await checkedListing(TOOLS, direct, viaGateway, UPSTREAM, config.tools);
    const text = filler(config.argumentBytes);
    const loop = (client: Requester, tools: string[]) => (count: number, concurrency: number) =>
      callLoop(client, { tools, upstreamTools: items }, text, count, concurrency);
    const upstreamCalls = { issued: 0, served: 0 };
    const levels = await measureCompared({
      plan: {
        what: 'tools/call',
        warmup: config.warmup,
        count: config.calls,
        concurrencies: config.concurrencies,
        rounds: config.rounds,
      },
      variants: directAndGateway(loop(direct, items), loop(viaGateway, exposed), {
        upstream: upstream.proc,
        gateway: gateway.proc,
      }),
      pairs: [['gateway', 'direct']],
      log,
      before: served,
      after: async (run, before, issued) => {
        const calls = (await served()) - before;
        upstreamCalls.issued += issued;
        upstreamCalls.served += calls;
        if (calls !== issued) {
          throw new Error(
            `tools/call ${run.path} c=${run.concurrency} round ${run.round + 1}: the upstream served ${calls} ` +
              `tools/call for ${issued} calls issued; expected exactly one each`,
          );
        }
        return {};
      },
    });
    return { config, levels, upstreamCalls, gatewayWarnings: Object.fromEntries(gateway.proc.warnings) };
  });
}
