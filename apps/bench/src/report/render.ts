/** The human-readable table (stdout): a header, every section that ran, the targets and gateway warnings. */
import { renderCatalog } from '../catalog/render.js';
import { renderCredentials } from '../credentials/render.js';
import type { ReadResult, ToolCallResult } from '../direct-vs-gateway.js';
import type { BenchResults } from '../results.js';
import { renderSessionMemory } from '../session-memory/render.js';
import { renderEnumeration } from './enumerate.js';
import { comparedLegend, comparedTable, int, table } from './format.js';
import { renderPaths } from './paths.js';
import { renderCacheHit, renderGovernance, renderStack } from './plugins.js';
import { renderReplicas } from './replicas.js';
import type { Target } from './targets.js';

export interface Environment {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  loadavg: number[];
}

/** `a`, `b`, … for the sub-sections of a section. */
const letter = (i: number): string => String.fromCharCode(97 + i);

function header(options: {
  mode: string;
  env: Environment;
  startedAt: string;
  clientFetch: string;
}): string[] {
  const { env } = options;
  const out = [
    `Switchyard benchmark (${options.mode}) — ${options.startedAt}`,
    `node ${env.node}, ${env.platform}/${env.arch}, ${env.cpus} CPU(s) (${env.cpuModel}), ` +
      `load avg at start ${env.loadavg.map((l) => l.toFixed(2)).join(' ')}`,
    options.clientFetch.startsWith('raw')
      ? `bench client: ${options.clientFetch}`
      : `bench client: @modelcontextprotocol/client over Streamable HTTP, fetch: ${options.clientFetch}`,
  ];
  if (env.loadavg[0]! > env.cpus * 0.5) {
    out.push(
      `WARNING: the box was already busy at start (1-min load ${env.loadavg[0]!.toFixed(2)} on ${env.cpus} ` +
        'CPUs): other processes compete for the cores, so the absolute numbers and ratios are unreliable.',
    );
  }
  return [...out, ''];
}

/** Sections 1 and 4a: what was read or called, how many per round, the table, and `checked` lines. */
function directVsGateway(
  heading: string,
  what: string,
  count: number,
  r: ReadResult | ToolCallResult,
  checked: string[],
) {
  const c = r.config;
  return [
    heading,
    `   ${int.format(count)} ${what} per round after ${int.format(c.warmup)} warm-up ${what}; ` +
      `${c.rounds} interleaved rounds per path; median round (by req/s) shown`,
    '',
    comparedTable(r.levels, {
      paths: [
        { path: 'direct', label: 'direct' },
        { path: 'gateway', label: 'gateway' },
      ],
      pairLabel: () => 'gw/direct',
    }),
    ...checked,
    '',
  ];
}

function renderToolCall(call: ToolCallResult): string[] {
  const c = call.config;
  return directVsGateway(
    `4a. tools/call over Streamable HTTP — 1 testkit upstream (${c.tools} echo tools, called round-robin, ` +
      `${c.argumentBytes} B text argument + seq)`,
    'calls',
    c.calls,
    call,
    [
      `   checked: every answer (warm-up and timed) echoed its own tool name and arguments as structuredContent ` +
        `and text; the upstream served ${int.format(call.upstreamCalls.served)} tools/call for ` +
        `${int.format(call.upstreamCalls.issued)} calls issued (one each, every round).`,
    ],
  );
}

/**
 * Gateway WARN/ERROR lines (digits masked) of every benchmark, most frequent first: every `gatewayWarnings`
 * in the results (counts by kind, or by gateway then kind), named by where it sits.
 */
function warnings(results: BenchResults): string[] {
  const out: string[] = [];
  const print = (what: string, counts: Record<string, number>) => {
    const kinds = Object.entries(counts).sort((a, b) => b[1] - a[1]);
    if (kinds.length === 0) return;
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    out.push('', `Gateway stderr during ${what}: ${int.format(total)} warning line(s) (digits masked):`);
    for (const [kind, n] of kinds.slice(0, 8))
      out.push(`  ${int.format(n).padStart(7)} × ${kind.slice(0, 160)}`);
  };
  const visit = (value: unknown, where: string): void => {
    if (value === null || typeof value !== 'object') return;
    const named = value as Record<string, unknown>;
    const name = named.scenario ?? named.store ?? named.variant;
    const here = typeof name === 'string' ? `${where} (${name})` : where;
    for (const [key, child] of Object.entries(named)) {
      if (key !== 'gatewayWarnings') visit(child, Array.isArray(value) ? here : `${here} ${key}`.trim());
      else if (Object.values(child as object).every((n) => typeof n === 'number'))
        print(here, child as Record<string, number>);
      else for (const [gw, counts] of Object.entries(child as object)) print(`${here} [${gw}]`, counts);
    }
  };
  visit(results, '');
  return out;
}

export function renderTable(options: {
  mode: string;
  env: Environment;
  startedAt: string;
  durationMs: number;
  results: BenchResults;
  targets: Target[];
  jsonPath: string;
  clientFetch: string;
}): string {
  const { results, targets } = options;
  const { read, enumerate, plugins, tools, replicas } = results;
  const out: string[] = header(options);

  if (read) {
    const c = read.config;
    const heading = `1. resources/read over Streamable HTTP — 1 testkit upstream (${c.resources} resources, ${c.payloadBytes} B payload)`;
    out.push(...directVsGateway(heading, 'reads', c.reads, read, []));
  }
  for (const [i, e] of enumerate.entries()) out.push(...renderEnumeration(e, `2${letter(i)}`));
  if (plugins?.hit) out.push(...renderCacheHit(plugins.hit));
  if (plugins?.stack) out.push(...renderStack(plugins.stack));
  if (plugins?.governance) out.push(...renderGovernance(plugins.governance));
  if (tools?.call) out.push(...renderToolCall(tools.call));
  for (const [i, e] of (tools?.list ?? []).entries()) out.push(...renderEnumeration(e, `4${letter(i + 1)}`));
  if (replicas) out.push(...renderReplicas(replicas));
  if (results.paths) out.push(...renderPaths(results.paths));
  if (results.sessionMemory) out.push(...renderSessionMemory(results.sessionMemory));
  if (results.catalog) out.push(...renderCatalog(results.catalog));
  // The legend names the sections with compared paths that ran.
  const compared = (
    [
      ['1', read],
      ['3', plugins],
      ['4a', tools?.call],
      ['5', replicas?.sharedCache ?? replicas?.rateLimit],
    ] as const
  ).flatMap(([section, part]) => (part === undefined ? [] : [section]));
  if (compared.length > 0) out.push(`Compared paths (${compared.join(', ')}):`, ...comparedLegend(), '');

  // A run of sections without targets (e.g. --only replicas) prints no empty targets table.
  if (targets.length > 0) {
    out.push(
      'Targets (informational, not asserted)',
      table(
        ['target', 'goal', 'actual', ''],
        targets.map((t) => [t.name, t.target, t.actual, t.informational ? '-' : t.met ? 'met' : 'MISSED']),
        'llrl',
      ),
    );
  }
  for (const t of targets) if (t.note) out.push(`   ${t.note}`);
  if (results.credentials) out.push('', ...renderCredentials(results.credentials));
  out.push(...warnings(results));
  out.push('', `total runtime ${(options.durationMs / 1000).toFixed(1)} s; JSON: ${options.jsonPath}`);
  return out.join('\n');
}
