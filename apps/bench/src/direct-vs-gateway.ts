/**
 * Sections 1 (`resources/read`) and 4a (`tools/call` of echo tools), one engine: a testkit upstream read or
 * called directly and through a gateway fronting it. Both listings are checked first, every answer after
 * (the echo returns `{ tool, arguments }` with a sequence number), and in 4a the upstream's `tools/call`
 * counter must move by exactly one per call issued in every round.
 */
import { counters, type Log, type RunOptions, Scope } from './harness.js';
import { checkedListing } from './lists.js';
import {
  atEach,
  callLoop,
  filler,
  measureCompared,
  oneCallEach,
  type Requester,
  readLoop,
  type TimedLoop,
} from './measure.js';
import { comparedSection, planLine } from './report/format.js';
import type { Sizes } from './sizes.js';

/** The upstream's name: the gateway exposes `a+<uri>` and `a__tool_<k>`. */
const UPSTREAM = 'a';

export function runReadBenchmark(config: Sizes['read'], log: Log, options: RunOptions = {}) {
  const spec = { name: UPSTREAM, resources: config.resources, payloadBytes: config.payloadBytes };
  return directVsGateway('read', config, config.reads, spec, log, options);
}

export function runToolCallBenchmark(config: Sizes['tools']['call'], log: Log, options: RunOptions = {}) {
  const spec = { name: UPSTREAM, resources: 0, tools: config.tools };
  return directVsGateway('tools/call', config, config.calls, spec, log, options);
}

function directVsGateway<C extends Sizes['read'] | Sizes['tools']['call']>(
  what: 'read' | 'tools/call',
  config: C,
  count: number,
  spec: { name: string; resources: number; payloadBytes?: number; tools?: number },
  log: Log,
  options: RunOptions,
) {
  return Scope.with(async (scope) => {
    const upstream = await scope.upstream(spec);
    const gateway = await scope.gateway([upstream], options);
    const direct = await scope.client(upstream.url, 'bench-direct', options);
    const viaGateway = await scope.client(gateway.url, 'bench-gateway', options);
    log(`${what}: upstream ${upstream.url}, gateway ${gateway.url}`);
    const reads = 'reads' in config;
    const listed = await checkedListing(
      reads ? 'resources' : 'tools',
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
    const stats = counters(upstream);
    const calls = reads ? undefined : oneCallEach(async () => (await stats()).calls);
    const levels = await measureCompared({
      what,
      levels: atEach(config.concurrencies, config.warmup, count),
      rounds: config.rounds,
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
      counters: calls && { calls },
    });
    const gatewayWarnings = Object.fromEntries(gateway.proc.warnings);
    /** `upstreamCalls` (tools/call only): calls issued over every round and the upstream's count over them. */
    return { config, levels, gatewayWarnings, upstreamCalls: calls?.totals };
  });
}

/** Sections 1 and 4a: the heading, what each round ran, the table, and the `checked` lines. */
export function renderDirectVsGateway(
  heading: string,
  r: Awaited<ReturnType<typeof directVsGateway>>,
  checked: string[] = [],
): string[] {
  const c = r.config;
  const [what, count] = 'reads' in c ? ['reads', c.reads] : ['calls', c.calls];
  const paths = [
    { path: 'direct', label: 'direct' },
    { path: 'gateway', label: 'gateway' },
  ];
  return comparedSection(
    heading,
    planLine(what, atEach(c.concurrencies, c.warmup, count), c.rounds),
    r.levels,
    { paths, pairLabel: () => 'gw/direct' },
    checked,
  );
}
