/** One enumeration scenario's section (2a/2b for resources, 4b/4c for tools): the table, checks, CPU and floors. */
import type { EnumerateResult } from '../enumerate.js';
import { int, intOrNa, table } from './format.js';

/** The enumeration floors as one line: the upstreams' CPU over the cores, latency × round trips, both. */
function floors(e: EnumerateResult): string {
  const { cpu, latency, lockStep } = e.floors;
  const parts = [
    cpu === undefined
      ? 'upstream CPU n/a'
      : `upstream CPU ${intOrNa(cpu.upstreamsCpuMs)} ms ÷ ${cpu.cores} cores = ${intOrNa(cpu.ms)} ms ` +
        `(${cpu.ratio.toFixed(2)}x)`,
  ];
  if (e.config.latencyMs > 0) {
    parts.push(
      `latency ${e.expectedPages} round trips × ${e.config.latencyMs} ms = ${intOrNa(latency.ms)} ms ` +
        `(${latency.ratio.toFixed(2)}x)`,
    );
  }
  if (lockStep !== undefined) {
    parts.push(
      `lock step, latency + upstream CPU: ~${intOrNa(lockStep.ms)} ms (${lockStep.ratio.toFixed(2)}x)`,
    );
  }
  return parts.join('; ');
}

/** `heading` is the section number, e.g. `2a` or `4b`. */
export function renderEnumeration(e: EnumerateResult, heading: string): string[] {
  const c = e.config;
  const noun = e.list;
  const key = e.list === 'resources' ? 'URIs' : 'names';
  const pagesNote = e.gatewayPages === e.expectedPages ? '' : '  (UNEXPECTED page count)';
  const allPages = `${c.upstreams}×${e.directPages}`;
  /** A row: what walked, its ms, pages and items, and its time ÷ the slowest single upstream's. */
  const row = (what: string, ms: number, pages: string, items: number): string[] => [
    what,
    ms.toFixed(1),
    pages,
    int.format(items),
    `${(ms / e.slowestSingleMs).toFixed(2)}x`,
  ];
  return [
    `${heading}. ${e.method} enumeration, ${e.label} — ${c.upstreams} testkit upstreams × ` +
      `${int.format(c.itemsPerUpstream)} ${noun}, page size ${c.pageSize}; median of ${c.runs} runs ` +
      '(after 1 checked warm-up)',
    '',
    table(
      ['what', 'ms', 'pages', noun, 'vs slowest'],
      [
        row('slowest single upstream, direct', e.slowestSingleMs, String(e.directPages), c.itemsPerUpstream),
        row('everything through the gateway', e.gatewayMs, String(e.gatewayPages), e.expectedTotal),
        row(
          `(ref) all ${c.upstreams} direct, one after another`,
          e.directSequentialMs,
          allPages,
          e.expectedTotal,
        ),
        row(`(ref) all ${c.upstreams} direct, concurrently`, e.directConcurrentMs, allPages, e.expectedTotal),
      ],
      'lrrrr',
    ),
    `   checked every run: exactly the ${int.format(e.expectedTotal)} expected exposed ${key}, each once, ` +
      `${int.format(c.itemsPerUpstream)} per upstream, none unavailable`,
    `   gateway round trips: ${e.gatewayPages} (expected ${e.expectedPages})${pagesNote}; ` +
      `gateway / all-direct-concurrently = ${e.ratioVsConcurrent.toFixed(2)}x; ` +
      `gateway / all-direct-one-after-another = ${e.ratioVsSequential.toFixed(2)}x`,
    `   CPU ms per full enumeration (user + system): through the gateway: gateway ` +
      `${intOrNa(e.cpuMs.gatewayWalk.gateway)}, upstreams ${intOrNa(e.cpuMs.gatewayWalk.upstreams)}, ` +
      `client ${intOrNa(e.cpuMs.gatewayWalk.client)}; all direct concurrently: upstreams ` +
      `${intOrNa(e.cpuMs.directConcurrent.upstreams)}, client ${intOrNa(e.cpuMs.directConcurrent.client)}`,
    `   floors of the gateway walk (x = vs slowest single): ${floors(e)}`,
    '',
  ];
}
