/** Sections 3a (cache hits vs direct), 3b (the plugin stack on misses vs a bare gateway), 3c (the secrets plugin per tool call). */
import {
  type CacheHitResult,
  type SecretsResult,
  STACK_LABELS,
  type StackPath,
  type StackResult,
} from '../plugins/index.js';
import { comparisonRow, int, levelsLine, RUN_HEADER, runCells, table } from './format.js';

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

export function renderSecrets(secrets: SecretsResult): string[] {
  const rows: string[][] = [];
  for (const size of secrets.sizes) {
    const label =
      size.resultBytes >= 1024 * 1024
        ? `${size.resultBytes / 1024 / 1024} MiB`
        : `${size.resultBytes / 1024} KiB`;
    rows.push([label, ...runCells(size.medians.bare, 'bare gateway', size.rounds)]);
    rows.push(['', ...runCells(size.medians.secrets, 'gateway + secrets', size.rounds)]);
    rows.push(comparisonRow('secrets/bare', size.comparison, RUN_HEADER.length));
  }
  const header = ['result', ...RUN_HEADER.slice(1)];
  const measured = secrets.sizes.map((s) => `${int.format(s.measuredResultBytes)} B`).join(', ');
  return [
    '3c. Secrets per tool call — 1 testkit upstream echo tool; a bare gateway vs a gateway with ' +
      '@switchyard/plugin-secrets (defaults: arguments and results scanned, redact), one call at a time',
    `   calls per round: ${secrets.config.sizes.map((s) => `${s.warmup} + ${s.calls}`).join(', ')}; ` +
      `${secrets.config.rounds} interleaved rounds per path; median round (by calls/s) shown; results of ${measured}` +
      ' (the echo holds the argument twice: the plugin scans half the result on the way in, all of it on the way out)',
    '',
    table(header, rows, 'llrrrrrrrr'),
    '   secrets/bare row: throughput ratio, then added p50 / p99 (ms).',
    `   checked: every answer is the unredacted echo; the upstream served ${int.format(secrets.upstreamCalls.served)} ` +
      `tools/call for ${int.format(secrets.upstreamCalls.issued)} issued.`,
    '',
  ];
}
