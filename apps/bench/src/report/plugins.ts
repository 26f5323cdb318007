/**
 * Sections 3a (cache hits vs direct), 3b (the plugin stack on misses vs a bare gateway), 3c (the governance
 * plugins per tool call).
 */
import {
  type CacheHitResult,
  GOVERNANCE_PLUGINS,
  type GovernancePlugin,
  type GovernanceResult,
  type GovernanceRun,
  STACK_LABELS,
  type StackPath,
  type StackResult,
} from '../plugins/index.js';
import { comparisonRow, int, levelsLine, RUN_HEADER, runCells, signed, table } from './format.js';

/** The stack table's columns: every run's, then upstream subscribes per read and the gateway's memory. */
const STACK_HEADER = [...RUN_HEADER, 'subs/read', 'rss MiB'];

export function renderCacheHit(hit: CacheHitResult): string[] {
  const c = hit.config;
  const rows: string[][] = [];
  for (const level of hit.levels) {
    const direct = level.medians.direct!;
    const cache = level.medians.cache!;
    rows.push([String(level.concurrency), ...runCells(direct, 'direct', level.rounds)]);
    rows.push(['', ...runCells(cache, 'gateway + cache (hits)', level.rounds)]);
    rows.push(comparisonRow('cache/direct', level.comparisons[0]!, RUN_HEADER.length));
  }
  return [
    `3a. Cache hits vs direct — 1 testkit upstream (${c.resources} resources, ${c.payloadBytes} B payload, ` +
      `${c.latencyMs} ms per read); gateway with @switchyard/plugin-cache (defaults)`,
    `   reads per round: ${levelsLine(c.levels)}; ${c.rounds} interleaved rounds per path; median round ` +
      '(by req/s) shown',
    '',
    table(RUN_HEADER, rows, 'rlrrrrrrrr'),
    '   cache/direct row: throughput ratio, then added p50 / p99 (gateway − direct, ms; negative = faster).',
    `   checked: warming read each of the ${c.resources} URIs once upstream (${hit.warmUpstreamReads} upstream ` +
      'reads, then a second pass with none); the upstream served 0 reads during every gateway round ' +
      '(testkit control API counter), i.e. every timed gateway read was a hit.',
    '',
  ];
}

export function renderStack(stack: StackResult): string[] {
  const c = stack.config;
  const label = (path: StackPath): string => STACK_LABELS[path];
  const rows: string[][] = [];
  for (const level of stack.levels) {
    for (const [i, path] of (Object.keys(STACK_LABELS) as StackPath[]).entries()) {
      const run = level.medians[path];
      if (!run) continue;
      rows.push([
        i === 0 ? String(level.concurrency) : '',
        ...runCells(run, label(path), level.rounds),
        (run.upstreamSubscribes / run.readsIssued).toFixed(2),
        run.gatewayRssMiB === undefined ? 'n/a' : run.gatewayRssMiB.toFixed(0),
      ]);
    }
    for (const vs of level.comparisons) {
      rows.push(
        comparisonRow(`${label(vs.path as StackPath).replace('stack, ', '')}/bare`, vs, STACK_HEADER.length),
      );
    }
  }
  const audit = stack.audit
    .map(
      (a) =>
        `${label(a.path)}: ${int.format(a.readRecords)} read records / ${int.format(a.readsIssued)} reads, ${JSON.stringify(a.cacheStatus)}`,
    )
    .join('; ');
  return [
    `3b. Plugin stack on cache misses vs a bare gateway — 1 testkit upstream (${c.resources} resources, ` +
      `${c.payloadBytes} B payload, 0 ms)`,
    `   stack (outermost first): audit (fsync interval) → rate-limit (limits far above the load) → access ` +
      `(allow + 1 deny rule matching nothing) → cache (maxBytes ${int.format(c.cacheMaxBytes)} ≈ ` +
      `${stack.cacheCapacityEntries} entries of ~${int.format(stack.entryBytes)} B; reads round-robin, so every read misses)`,
    `   reads per round: ${levelsLine(c.levels)}; ${c.rounds} interleaved rounds per path; median round ` +
      '(by req/s) shown',
    '',
    table(STACK_HEADER, rows, 'rlrrrrrrrrrr'),
    '   …/bare rows: throughput ratio, then added p50 / p99 (stack − bare gateway, ms).',
    '   subs/read: upstream resources/subscribe calls per read (the coherent cache subscribes before the ' +
      'first miss of a URI and keeps the subscription for lingerMs after its entry leaves); rss: gateway RSS ' +
      'after the round.',
    `   checked: the upstream served exactly one resources/read per read issued on every path and round; audit ` +
      `logs: ${audit}; upstream subscriptions still held at the end: ${stack.upstreamSubscriptionsHeld} ` +
      `(cached entries ≤ ~${stack.cacheCapacityEntries}, plus lingering watches of recently evicted URIs).`,
    '',
  ];
}

/** Row labels of the governance paths. */
const GOVERNANCE_LABELS: Record<GovernancePlugin, string> = {
  secrets: 'gateway + secrets',
  pin: 'gateway + pin',
  approve: 'gateway + approve',
  access: 'gateway + access',
};

/** Every run's columns with `result` for `conc`, then the calls answered as SSE streams. */
const GOVERNANCE_HEADER = ['result', ...RUN_HEADER.slice(1), 'streamed'];

function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`;
}

export function renderGovernance(gov: GovernanceResult): string[] {
  const rows: string[][] = [];
  for (const size of gov.sizes) {
    const calls = gov.config.sizes.find((c) => c.resultBytes === size.resultBytes)?.calls;
    const streamed = (run: GovernanceRun): string =>
      run.streamedCalls === undefined || calls === undefined ? 'n/a' : `${run.streamedCalls}/${calls}`;
    rows.push([
      sizeLabel(size.resultBytes),
      ...runCells(size.medians.bare, 'bare gateway', size.rounds),
      streamed(size.medians.bare),
    ]);
    for (const plugin of GOVERNANCE_PLUGINS) {
      const run = size.medians[plugin];
      rows.push(['', ...runCells(run, GOVERNANCE_LABELS[plugin], size.rounds), streamed(run)]);
    }
    for (const vs of size.comparisons) {
      const row = comparisonRow(`${vs.path}/bare`, vs, GOVERNANCE_HEADER.length);
      row[RUN_HEADER.indexOf('req/s range')] = `${vs.pairedThroughputRatio.toFixed(2)}x paired`;
      if (vs.addedGatewayCpuUs !== undefined) {
        row[RUN_HEADER.indexOf('cpu gw')] = signed(vs.addedGatewayCpuUs, 0);
      }
      rows.push(row);
    }
  }
  const measured = gov.sizes.map((s) => `${int.format(s.measuredResultBytes)} B`).join(', ');
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  return [
    '3c. Governance plugins per tool call — 1 testkit upstream echo tool; a bare gateway vs one gateway per ' +
      'plugin, each alone, one call at a time:',
    '   secrets: @switchyard/plugin-secrets (defaults: arguments and results scanned, redact); pin: ' +
      `@switchyard/plugin-pin (lock file written by trust on first use when the bench listed the tools: ` +
      `${gov.pinnedTools.join(', ')} pinned);`,
    `   approve: @switchyard/plugin-approve, one rule on a__* with \`when: arguments.seq < 0\` (matched and ` +
      'evaluated on every call, never true: its cost on the calls it lets through; a held call costs a ' +
      "human's time, not CPU); access: @switchyard/plugin-access, default allow + a deny rule on a__* with " +
      'the same `when`',
    `   calls per round: ${gov.config.sizes.map((s) => `${s.warmup} + ${s.calls}`).join(', ')}; ` +
      `${gov.config.rounds} rounds, paths interleaved (order rotated each round); median round (by calls/s) ` +
      `shown; results of ${measured} (the echo holds the argument twice)`,
    '',
    table(GOVERNANCE_HEADER, rows, 'llrrrrrrrrr'),
    '   …/bare rows: throughput ratio and added p50 / p99 (ms) of the median rounds; then, paired round by ' +
      'round with the bare gateway (the two ran seconds apart, so load that comes and goes between rounds ' +
      'cancels): the median ratio, and in cpu gw the median gateway CPU per call the plugin adds (µs).',
    "   streamed: timed calls the gateway answered as an SSE stream (a 2025-11-25 session's tools/call still " +
      'running after 50 ms becomes a resumable stream, which costs more than a JSON answer): a path whose ' +
      'calls cross 50 ms pays for that too.',
    `   checked: every answer is the unredacted echo; the upstream served ${int.format(gov.upstreamCalls.served)} ` +
      `tools/call for ${int.format(gov.upstreamCalls.issued)} issued (one per call on every path and round); ` +
      `load avg ${load(gov.loadavg.start)} at the start, ${load(gov.loadavg.end)} at the end.`,
    '',
  ];
}
