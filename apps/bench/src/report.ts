/** The human-readable table (stdout) and the targets evaluation shared with the JSON report. */
import type { EnumerateResult } from './enumerate.js';
import type { ReadResult, ReadRun } from './read.js';

export interface Target {
  name: string;
  target: string;
  actual: string;
  value: number;
  met: boolean;
}

export interface Environment {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  loadavg: number[];
}

/** The stated goals, evaluated against the results. Informational only: never changes the exit code. */
export function evaluateTargets(
  read: ReadResult | undefined,
  enumerate: EnumerateResult | undefined,
): Target[] {
  const targets: Target[] = [];
  for (const level of read?.levels ?? []) {
    targets.push({
      name: `read throughput, c=${level.concurrency}`,
      target: '>= 0.90x direct',
      actual: `${level.throughputRatio.toFixed(2)}x`,
      value: level.throughputRatio,
      met: level.throughputRatio >= 0.9,
    });
  }
  for (const level of read?.levels ?? []) {
    targets.push({
      name: `read added p99, c=${level.concurrency}`,
      target: '<= 1 ms',
      actual: `${signed(level.addedP99Ms)} ms`,
      value: level.addedP99Ms,
      met: level.addedP99Ms <= 1,
    });
  }
  if (enumerate) {
    targets.push({
      name: 'enumeration vs slowest single upstream',
      target: '<= 1.20x',
      actual: `${enumerate.ratio.toFixed(2)}x`,
      value: enumerate.ratio,
      met: enumerate.ratio <= 1.2,
    });
  }
  return targets;
}

function signed(n: number, digits = 3): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;
}

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Renders rows as a text table; `align` is one of 'l'/'r' per column. */
function table(header: string[], rows: string[][], align: string, indent = '  '): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]): string =>
    indent +
    cells
      .map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = indent + widths.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(header), rule, ...rows.map(fmt)].join('\n');
}

function cpuCell(us: number | undefined): string {
  return us === undefined ? 'n/a' : int.format(us);
}

function cpuMs(ms: number | undefined): string {
  return ms === undefined ? 'n/a' : int.format(ms);
}

function range(runs: ReadRun[]): string {
  const rps = runs.map((r) => r.rps);
  return `${int.format(Math.min(...rps))}-${int.format(Math.max(...rps))}`;
}

export function renderTable(options: {
  mode: string;
  env: Environment;
  startedAt: string;
  durationMs: number;
  read?: ReadResult;
  enumerate?: EnumerateResult;
  targets: Target[];
  jsonPath: string;
  clientFetch: string;
}): string {
  const { env, read, enumerate, targets } = options;
  const out: string[] = [];
  out.push(
    `Switchyard benchmark (${options.mode}) — ${options.startedAt}`,
    `node ${env.node}, ${env.platform}/${env.arch}, ${env.cpus} CPU(s) (${env.cpuModel}), ` +
      `load avg at start ${env.loadavg.map((l) => l.toFixed(2)).join(' ')}`,
    `bench client: @modelcontextprotocol/client over Streamable HTTP, fetch: ${options.clientFetch}`,
  );
  if (env.loadavg[0]! > env.cpus * 0.5) {
    out.push(
      `WARNING: the box was already busy at start (1-min load ${env.loadavg[0]!.toFixed(2)} on ${env.cpus} ` +
        'CPUs): other processes compete for the cores, so the absolute numbers and ratios are unreliable.',
    );
  }
  out.push('');

  if (read) {
    const c = read.config;
    out.push(
      `1. resources/read over Streamable HTTP — 1 testkit upstream (${c.resources} resources, ` +
        `${c.payloadBytes} B payload)`,
      `   ${int.format(c.reads)} reads per round after ${int.format(c.warmup)} warm-up reads; ` +
        `${c.rounds} interleaved rounds per path; median round (by req/s) shown`,
      '',
    );
    const rows: string[][] = [];
    for (const level of read.levels) {
      const ofPath = (path: 'direct' | 'gateway') => level.rounds.filter((r) => r.path === path);
      for (const run of [level.direct, level.gateway]) {
        rows.push([
          run === level.direct ? String(level.concurrency) : '',
          run.path,
          int.format(run.rps),
          run.p50.toFixed(3),
          run.p99.toFixed(3),
          run.max.toFixed(2),
          range(ofPath(run.path)),
          cpuCell(run.cpuUsPerRead.client),
          cpuCell(run.cpuUsPerRead.upstream),
          run.path === 'gateway' ? cpuCell(run.cpuUsPerRead.gateway) : '-',
        ]);
      }
      rows.push([
        '',
        'gw/direct',
        `${level.throughputRatio.toFixed(2)}x`,
        signed(level.addedP50Ms),
        signed(level.addedP99Ms),
        '',
        '',
        '',
        '',
        '',
      ]);
    }
    out.push(
      table(
        [
          'conc',
          'path',
          'req/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'req/s range',
          'cpu client',
          'cpu up',
          'cpu gw',
        ],
        rows,
        'rlrrrrrrrr',
      ),
      '   gw/direct row: throughput ratio, then added p50 / p99 (gateway − direct, ms).',
      '   cpu columns: CPU time (user + system) per read, in µs, of the bench client, the upstream and the gateway.',
      '',
    );
  }

  if (enumerate) {
    const c = enumerate.config;
    out.push(
      `2. resources/list enumeration — ${c.upstreams} testkit upstreams × ${int.format(c.resourcesPerUpstream)} ` +
        `resources, page size ${c.pageSize}; median of ${c.runs} runs (after 1 checked warm-up)`,
      '',
    );
    const pagesNote = enumerate.gatewayPages === enumerate.expectedPages ? '' : '  (UNEXPECTED page count)';
    out.push(
      table(
        ['what', 'ms', 'pages', 'resources', 'vs slowest'],
        [
          [
            'slowest single upstream, direct',
            enumerate.slowestSingleMs.toFixed(1),
            String(enumerate.directPages),
            int.format(c.resourcesPerUpstream),
            '1.00x',
          ],
          [
            'everything through the gateway',
            enumerate.gatewayMs.toFixed(1),
            String(enumerate.gatewayPages),
            int.format(enumerate.expectedTotal),
            `${enumerate.ratio.toFixed(2)}x`,
          ],
          [
            `(ref) all ${c.upstreams} direct, concurrently`,
            enumerate.directConcurrentMs.toFixed(1),
            `${c.upstreams}×${enumerate.directPages}`,
            int.format(enumerate.expectedTotal),
            `${(enumerate.directConcurrentMs / enumerate.slowestSingleMs).toFixed(2)}x`,
          ],
        ],
        'lrrrr',
      ),
      `   checked every run: exactly ${int.format(enumerate.expectedTotal)} resources, all URIs unique, ` +
        `${int.format(c.resourcesPerUpstream)} per upstream, none unavailable`,
      `   gateway round trips: ${enumerate.gatewayPages} (expected ${enumerate.expectedPages})${pagesNote}; ` +
        `gateway / all-direct-concurrently = ${enumerate.ratioVsConcurrent.toFixed(2)}x`,
      `   CPU ms per full enumeration (user + system): through the gateway: gateway ` +
        `${cpuMs(enumerate.cpuMs.gatewayWalk.gateway)}, upstreams ${cpuMs(enumerate.cpuMs.gatewayWalk.upstreams)}, ` +
        `client ${cpuMs(enumerate.cpuMs.gatewayWalk.client)}; all direct concurrently: upstreams ` +
        `${cpuMs(enumerate.cpuMs.directConcurrent.upstreams)}, client ${cpuMs(enumerate.cpuMs.directConcurrent.client)}`,
      '',
    );
  }

  out.push('Targets (informational, not asserted)');
  out.push(
    table(
      ['target', 'goal', 'actual', ''],
      targets.map((t) => [t.name, t.target, t.actual, t.met ? 'met' : 'MISSED']),
      'llrl',
    ),
  );
  const sections: [string, Record<string, number> | undefined][] = [
    ['read', read?.gatewayWarnings],
    ['enumeration', enumerate?.gatewayWarnings],
  ];
  for (const [what, warnings] of sections) {
    const kinds = Object.entries(warnings ?? {}).sort((a, b) => b[1] - a[1]);
    if (kinds.length === 0) continue;
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    out.push(
      '',
      `Gateway stderr during the ${what} benchmark: ${int.format(total)} warning line(s) (digits masked):`,
    );
    for (const [kind, n] of kinds.slice(0, 8))
      out.push(`  ${int.format(n).padStart(7)} × ${kind.slice(0, 160)}`);
  }
  out.push('', `total runtime ${(options.durationMs / 1000).toFixed(1)} s; JSON: ${options.jsonPath}`);
  return out.join('\n');
}
