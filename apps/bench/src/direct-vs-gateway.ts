/**
 * Sections 1 and 4a, one engine: one testkit upstream in its own process, read or called directly and
 * through the gateway fronting it, over Streamable HTTP, with the bench's method (rounds.ts: interleaved
 * rounds, median round, c=1 and c=16). Both listings are checked first (lists.ts `checkedListing`), and
 * every answer after (requests.ts).
 *
 * 1. `resources/read` throughput and latency of the upstream's resources (~1 KiB each).
 * 4a. `tools/call` of a handful of echo tools (the gateway routes `a__tool_<k>` to the upstream's
 *    `tool_<k>` by its name index). Each call sends a small argument payload and a sequence number, and
 *    every answer is checked: the echo tool returns `{ tool, arguments }` as `structuredContent` and as its
 *    one text content, so a call answered by the wrong tool, with the wrong arguments or for another request
 *    fails the bench. The upstream's own `tools/call` counter (testkit control API) must also move by
 *    exactly one per call issued in every round.
 */
import { type RunOptions, withGatewayPair } from './client.js';
import { checkedListing, RESOURCES, TOOLS } from './lists.js';
import { statsOf, upstreamCounters } from './read-paths.js';
import { callCounter, callLoop, filler, type Requester, readLoop } from './requests.js';
import { atEach, type ComparedLevel, measureCompared, type TimedLoop } from './rounds.js';
import type { Sizes } from './sizes.js';

/** The upstream's name: the gateway exposes `a+<uri>` and `a__tool_<k>`. */
const UPSTREAM = 'a';

export type ReadConfig = Sizes['read'];

export type ToolCallConfig = Sizes['tools']['call'];

export interface ReadResult {
  config: ReadConfig;
  levels: ComparedLevel[];
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
}

export interface ToolCallResult extends Omit<ReadResult, 'config'> {
  config: ToolCallConfig;
  /** Calls issued over every round (warm-ups included) and the upstream's `tools/call` count over them. */
  upstreamCalls: { issued: number; served: number };
}

type Log = (message: string) => void;

export function runReadBenchmark(config: ReadConfig, log: Log, options: RunOptions = {}) {
  const spec = { name: UPSTREAM, resources: config.resources, payloadBytes: config.payloadBytes };
  return directVsGateway('read', config, config.reads, spec, log, options);
}

export async function runToolCallBenchmark(
  config: ToolCallConfig,
  log: Log,
  options: RunOptions = {},
): Promise<ToolCallResult> {
  const spec = { name: UPSTREAM, resources: 0, tools: config.tools };
  const result = await directVsGateway('tools/call', config, config.calls, spec, log, options);
  return result as ToolCallResult;
}

async function directVsGateway<C extends ReadConfig | ToolCallConfig>(
  what: 'read' | 'tools/call',
  config: C,
  count: number,
  spec: { name: string; resources: number; payloadBytes?: number; tools?: number },
  log: Log,
  options: RunOptions,
): Promise<{ config: C; levels: ComparedLevel[]; gatewayWarnings: Record<string, number> }> {
  return withGatewayPair(spec, options, async ({ upstream, gateway, direct, viaGateway }) => {
    log(`${what}: upstream ${upstream.url}, gateway ${gateway.url}`);
    const reads = 'reads' in config;
    const kind = reads ? RESOURCES : TOOLS;
    const listed = await checkedListing(
      kind,
      direct,
      viaGateway,
      UPSTREAM,
      reads ? config.resources : config.tools,
    );
    const text = reads ? '' : filler(config.argumentBytes);
    const loop =
      (client: Requester, items: string[]) =>
      (n: number, concurrency: number): Promise<TimedLoop> =>
        reads
          ? readLoop(client, items, n, concurrency, config.payloadBytes)
          : callLoop(client, { tools: items, upstreamTools: listed.items }, text, n, concurrency);
    const stats = statsOf(upstream);
    const calls = reads ? undefined : callCounter(what, async () => (await upstreamCounters(stats)).calls);
    const levels = await measureCompared({
      plan: {
        what,
        levels: atEach(config.concurrencies, config.warmup, count),
        rounds: config.rounds,
      },
      variants: [
        { name: 'direct', loop: loop(direct, listed.items), cpu: { upstream: upstream.proc } },
        {
          name: 'gateway',
          loop: loop(viaGateway, listed.exposed),
          cpu: { upstream: upstream.proc, gateway: gateway.proc },
        },
      ],
      pairs: [['gateway', 'direct']],
      log,
      before: async () => (calls ? calls.before() : 0),
      after: async (run, before, issued) => {
        await calls?.check(run, before, issued);
        return {};
      },
    });
    const gatewayWarnings = Object.fromEntries(gateway.proc.warnings);
    return { config, levels, gatewayWarnings, ...(calls && { upstreamCalls: calls.totals }) };
  });
}
