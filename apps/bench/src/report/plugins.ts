/**
 * Sections 3a (cache hits vs direct), 3b (the plugin stack on misses vs a bare gateway), 3c (the governance
 * plugins per tool call).
 */
import {
  type CacheHitResult,
  GOVERNANCE_PLUGINS,
  type GovernanceResult,
  STACK_LABELS,
  type StackPath,
  type StackResult,
} from '../plugins/index.js';
import { comparedTable, int, levelsLine } from './format.js';

export function renderCacheHit(hit: CacheHitResult): string[] {
  const c = hit.config;
  const paths = [
    { path: 'direct', label: 'direct' },
    { path: 'cache', label: 'gateway + cache (hits)' },
  ];
  return [
    `3a. Cache hits vs direct — 1 testkit upstream (${c.resources} resources, ${c.payloadBytes} B payload, ` +
      `${c.latencyMs} ms per read); gateway with @switchyard/plugin-cache (defaults)`,
    `   reads per round: ${levelsLine(c.levels)}; ${c.rounds} interleaved rounds per path; median round ` +
      '(by req/s) shown',
    '',
    comparedTable(hit.levels, { paths }),
    `   checked: warming read each of the ${c.resources} URIs once upstream (${hit.warmUpstreamReads} upstream ` +
      'reads, then a second pass with none); the upstream served 0 reads during every gateway round ' +
      '(testkit control API counter), i.e. every timed gateway read was a hit.',
    '',
  ];
}

export function renderStack(stack: StackResult): string[] {
  const c = stack.config;
  const paths = Object.entries(STACK_LABELS).map(([path, label]) => ({ path, label }));
  const audit = stack.audit
    .map(
      (a) =>
        `${STACK_LABELS[a.path]}: ${int.format(a.readRecords)} read records / ${int.format(a.readsIssued)} reads, ${JSON.stringify(a.cacheStatus)}`,
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
    comparedTable(stack.levels, {
      paths,
      pairLabel: (vs) => `${STACK_LABELS[vs.path as StackPath].replace('stack, ', '')}/bare`,
      columns: [
        ['subs/read', 'r', (run) => (run.upstreamSubscribes / run.readsIssued).toFixed(2)],
        ['rss MiB', 'r', (run) => run.gatewayRssMiB?.toFixed(0) ?? 'n/a'],
      ],
    }),
    '   subs/read: upstream resources/subscribe calls per read (the coherent cache subscribes before the ' +
      'first miss of a URI and keeps the subscription for lingerMs after its entry leaves); rss: gateway RSS ' +
      'after the round.',
    `   checked: the upstream served exactly one resources/read per read issued on every path and round; audit ` +
      `logs: ${audit}; upstream subscriptions still held at the end: ${stack.upstreamSubscriptionsHeld} ` +
      `(cached entries ≤ ~${stack.cacheCapacityEntries}, plus lingering watches of recently evicted URIs).`,
    '',
  ];
}

function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`;
}

export function renderGovernance(gov: GovernanceResult): string[] {
  const paths = ['bare', ...GOVERNANCE_PLUGINS].map((path) => ({
    path,
    label: path === 'bare' ? 'bare gateway' : `gateway + ${path}`,
  }));
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
    comparedTable(gov.sizes, {
      paths,
      first: { header: 'result', cell: (size) => sizeLabel(size.resultBytes) },
      columns: [
        [
          'streamed',
          'r',
          (run) => (run.streamedCalls === undefined ? 'n/a' : `${run.streamedCalls}/${run.count}`),
        ],
      ],
    }),
    "   streamed: timed calls the gateway answered as an SSE stream (a 2025-11-25 session's tools/call still " +
      'running after 50 ms becomes a resumable stream, which costs more than a JSON answer): a path whose ' +
      'calls cross 50 ms pays for that too.',
    `   checked: every answer is the unredacted echo; the upstream served ${int.format(gov.upstreamCalls.served)} ` +
      `tools/call for ${int.format(gov.upstreamCalls.issued)} issued (one per call on every path and round); ` +
      `load avg ${load(gov.loadavg.start)} at the start, ${load(gov.loadavg.end)} at the end.`,
    '',
  ];
}
