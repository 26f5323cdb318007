/**
 * Every section as data, in run and print order: the `--only` names that run it, where its result sits in
 * the JSON, how it runs, how it prints and which goals it is held to. main.ts runs the list, report/render.ts
 * prints it, and the targets table is every section's `goals` in this order.
 */
import { renderCatalog, runCatalogBenchmark } from './catalog/index.js';

import { renderCredentials, runCredentialsBenchmark } from './credentials/index.js';
import { renderDirectVsGateway, runReadBenchmark, runToolCallBenchmark } from './direct-vs-gateway.js';
import { profileDirOf, renderEnumeration, runEnumerateBenchmark } from './enumerate.js';
import { children, type RunOptions } from './harness.js';
import { runPathsBenchmark } from './paths/index.js';
import { renderPaths } from './paths/matrix.js';
import {
  renderCacheHit,
  renderGovernance,
  renderStack,
  runCacheHitBenchmark,
  runGovernanceBenchmark,
  runStackBenchmark,
} from './plugins/index.js';
import { renderReplicas, runReplicasBenchmark } from './replicas/index.js';

import { int, signed } from './report/format.js';
import {
  CATALOG_GOALS_AT,
  check,
  cpuFloorNote,
  GOALS,
  hitCeilingNote,
  informational,
  kindOf,
  ratio,
  type Target,
  toolCallCpuNote,
} from './report/targets.js';
import { renderSessionMemory, runSessionMemoryBenchmark } from './session-memory/index.js';
import type { Sizes } from './sizes.js';

export interface SectionContext {
  sizes: Sizes;
  log: (message: string) => void;
  /**
   * A benchmark's options with its `--cpu-prof` subdirectory; unless `summarized` is false (section 6
   * summarizes its own), every profile at or under it is summarized at the end.
   */
  profiled(what: string, summarized?: boolean): RunOptions;
}

interface SectionSpec<R> {
  /** The `--only` names that run it. */
  only: readonly string[];
  /** Its place in the results (and the JSON): a key, or a key and a sub-key. */
  at: readonly [string] | readonly [string, string];
  /** The result placed before the run and filled as it goes (kept when the run fails half-way). */
  init?: (sizes: Sizes) => R;
  run(ctx: SectionContext, into: R): Promise<R | undefined>;
  render(result: R): string[];
  goals?: (result: R) => Target[];
  /** Printed after the targets. */
  late?: boolean;
  /** Its name in the `Compared paths (…)` legend, when its tables compare paths. */
  compared?: (result: R) => string | undefined;
}

/** Checks each spec against its own result type. */
const section = <R>(spec: SectionSpec<R>): SectionSpec<R> => spec;

/** `a`, `b`, … for the sub-sections of a section. */
const letter = (i: number): string => String.fromCharCode(97 + i);

/** The enumeration goals of each scenario: vs the slowest single upstream, then vs all one after another. */
function enumerationGoals(list: Awaited<ReturnType<typeof runEnumerateBenchmark>>[]): Target[] {
  const name = (e: (typeof list)[number], vs: string) =>
    `${e.method} enumeration vs ${vs}, ${kindOf(e)} (${e.config.latencyMs} ms/page)`;
  return [
    ...list.map((e) => check(GOALS.enumeration, name(e, 'slowest single'), e.ratio, () => cpuFloorNote(e))),
    ...list.map((e) =>
      check(GOALS.enumerationSequential, name(e, 'all direct one after another'), e.ratioVsSequential),
    ),
  ];
}

export const SECTIONS = [
  section({
    only: ['read'],
    at: ['read'],
    run: ({ sizes, log, profiled }) => runReadBenchmark(sizes.read, log, profiled('read')),
    render: (r) =>
      renderDirectVsGateway(
        `1. resources/read over Streamable HTTP — 1 testkit upstream (${r.config.resources} resources, ` +
          `${r.config.payloadBytes} B payload)`,
        r,
      ),
    goals: (r) => [
      ...r.levels.map((l) =>
        check(GOALS.throughput, `read throughput, c=${l.concurrency}`, l.comparisons[0]!.throughputRatio),
      ),
      ...r.levels.map((l) =>
        check(GOALS.readAddedP99, `read added p99, c=${l.concurrency}`, l.comparisons[0]!.addedP99Ms),
      ),
    ],
    compared: () => '1',
  }),
  section({
    only: ['enumerate'],
    at: ['enumerate'],
    init: () => [] as Awaited<ReturnType<typeof runEnumerateBenchmark>>[],
    run: async ({ sizes, log, profiled }, list) => {
      for (const c of sizes.enumerate)
        list.push(await runEnumerateBenchmark(c, log, profiled(profileDirOf(c))));
      return list;
    },
    render: (list) => list.flatMap((e, i) => renderEnumeration(e, `2${letter(i)}`)),
    goals: enumerationGoals,
  }),
  section({
    only: ['plugins'],
    at: ['plugins', 'hit'],
    run: ({ sizes, log, profiled }) => runCacheHitBenchmark(sizes.plugins.hit, log, profiled('plugins')),
    render: renderCacheHit,
    goals: (hit) =>
      hit.levels.map((level) =>
        check(
          GOALS.cacheHit,
          `cache hit vs direct (${hit.config.latencyMs} ms upstream), c=${level.concurrency}`,
          level.comparisons[0]!.throughputRatio,
          (met) => (met ? undefined : hitCeilingNote(hit, level.concurrency)),
        ),
      ),
    compared: () => '3',
  }),
  section({
    only: ['plugins'],
    at: ['plugins', 'stack'],
    run: ({ sizes, log, profiled }) => runStackBenchmark(sizes.plugins.stack, log, profiled('plugins')),
    render: renderStack,
    goals: (stack) =>
      stack.levels.flatMap((level) =>
        level.comparisons.map((vs) =>
          informational(
            `plugin stack on a miss, ${vs.path === 'stack' ? 'coherent' : 'coherent: false'}, c=${level.concurrency}`,
            vs.throughputRatio,
            `${ratio(vs.throughputRatio)} bare, p50 ${signed(vs.addedP50Ms)} / p99 ${signed(vs.addedP99Ms)} ms`,
          ),
        ),
      ),
    compared: () => '3',
  }),
  section({
    only: ['plugins', 'governance'],
    at: ['plugins', 'governance'],
    run: ({ sizes, log, profiled }) =>
      runGovernanceBenchmark(sizes.plugins.governance, log, profiled('plugins')),
    render: renderGovernance,
    compared: () => '3',
  }),
  section({
    only: ['tools'],
    at: ['tools', 'call'],
    run: ({ sizes, log, profiled }) => runToolCallBenchmark(sizes.tools.call, log, profiled('tools-call')),
    render: (call) =>
      renderDirectVsGateway(
        `4a. tools/call over Streamable HTTP — 1 testkit upstream (${call.config.tools} echo tools, called ` +
          `round-robin, ${call.config.argumentBytes} B text argument + seq)`,
        call,
        [
          '   checked: every answer (warm-up and timed) echoed its own tool name and arguments as ' +
            `structuredContent and text; the upstream served ${int.format(call.upstreamCalls!.served)} tools/call ` +
            `for ${int.format(call.upstreamCalls!.issued)} calls issued (one each, every round).`,
        ],
      ),
    // The c=16 level carries the goal; the others report their ratio and added latency.
    goals: (call) =>
      call.levels.map((level) => {
        const name = `tools/call throughput, c=${level.concurrency}`;
        const vs = level.comparisons[0]!;
        const r = vs.throughputRatio;
        return level.concurrency === 16
          ? check(GOALS.throughput, name, r, (met) => (met ? undefined : toolCallCpuNote(level)))
          : informational(
              name,
              r,
              `${ratio(r)}, p50 ${signed(vs.addedP50Ms)} / p99 ${signed(vs.addedP99Ms)} ms`,
            );
      }),
    compared: () => '4a',
  }),
  section({
    only: ['tools'],
    at: ['tools', 'list'],
    init: () => [] as Awaited<ReturnType<typeof runEnumerateBenchmark>>[],
    run: async ({ sizes, log, profiled }, list) => {
      for (const c of sizes.tools.list)
        list.push(await runEnumerateBenchmark(c, log, profiled(profileDirOf(c))));
      return list;
    },
    render: (list) => list.flatMap((e, i) => renderEnumeration(e, `4${letter(i + 1)}`)),
    goals: (list) => enumerationGoals(list).slice(0, list.length),
  }),
  section({
    only: ['replicas'],
    at: ['replicas'],
    init: (sizes) => ({ config: sizes.replicas }) as Awaited<ReturnType<typeof runReplicasBenchmark>>,
    run: ({ sizes, log }, into) => runReplicasBenchmark(sizes.replicas, log, into),
    render: renderReplicas,
    compared: (r) => ((r.sharedCache ?? r.rateLimit) ? '5' : undefined),
  }),
  section({
    only: ['paths'],
    at: ['paths'],
    init: (sizes) =>
      ({ config: sizes.paths, cells: [], gatewayWarnings: {} }) as Parameters<typeof runPathsBenchmark>[2],
    run: async ({ sizes, log, profiled }, into) => {
      await runPathsBenchmark(sizes.paths, log, into, profiled('paths', false));
      return into;
    },
    render: renderPaths,
  }),
  section({
    only: ['session-memory'],
    at: ['sessionMemory'],
    run: ({ sizes, log }) => runSessionMemoryBenchmark(sizes.sessionMemory, log),
    render: renderSessionMemory,
  }),
  section({
    only: ['catalog'],
    at: ['catalog'],
    run: ({ sizes, log }) => runCatalogBenchmark(sizes.catalog, log),
    render: renderCatalog,
    goals: (catalog) => {
      const tokens = catalog.tokens.find((row) => row.tools === CATALOG_GOALS_AT.tokensSaved);
      const scale = catalog.scale.find((row) => row.tools === CATALOG_GOALS_AT.latency);
      const { heldOut, all } = catalog.quality;
      return [
        ...(tokens
          ? [check(GOALS.tokensSaved, `search-mode tokens saved, ${tokens.tools} tools`, tokens.savedPercent)]
          : []),
        check(GOALS.recallAt5, 'tool search recall@5 (held-out)', heldOut.recallAt5),
        check(GOALS.recallAt1, 'tool search recall@1 (held-out)', heldOut.recallAt1),
        check(GOALS.recallAt5, 'tool search recall@5 (all)', all.recallAt5),
        check(GOALS.recallAt1, 'tool search recall@1 (all)', all.recallAt1),
        ...(scale
          ? [check(GOALS.searchP50, `tool search p50, ${scale.tools} tools`, scale.latency.p50)]
          : []),
      ];
    },
  }),
  section({
    only: ['credentials'],
    at: ['credentials'],
    run: ({ sizes, log }) => runCredentialsBenchmark(sizes.credentials, log),
    render: renderCredentials,
    late: true,
  }),
];

/** What a run measured, by the sections' places (a section not run is absent). */
export type BenchResults = Record<string, unknown>;

const ALL = SECTIONS as unknown as SectionSpec<unknown>[];

/** The names `--only` accepts, in run order. */
export const SECTION_NAMES = [...new Set(ALL.flatMap((spec) => spec.only))];

/** The sections that ran, in order, each with its result bound to what prints it and checks it. */
export function ranSections(results: BenchResults) {
  return ALL.flatMap((spec) => {
    const [key, sub] = spec.at;
    const top = results[key] as Record<string, unknown> | undefined;
    const result = sub === undefined ? top : top?.[sub];
    if (result === undefined) return [];
    return [
      {
        late: spec.late === true,
        render: () => spec.render(result),
        goals: () => spec.goals?.(result) ?? [],
        compared: () => spec.compared?.(result),
      },
    ];
  });
}

function place(spec: SectionSpec<unknown>, results: BenchResults, value: unknown): void {
  const [key, sub] = spec.at;
  if (sub === undefined) results[key] = value;
  else results[key] = { ...(results[key] as object | undefined), [sub]: value };
}

/**
 * Runs the sections `only` selects (all without it) into `results`, each raced against any child exiting
 * on its own: a request in flight to a process that died is not always rejected promptly (the SDK client
 * can wait for its request timeout).
 */
export async function runSections(ctx: SectionContext, only: string | undefined, results: BenchResults) {
  for (const spec of ALL) {
    if (only !== undefined && !spec.only.includes(only)) continue;
    const into = spec.init?.(ctx.sizes);
    if (into !== undefined) place(spec, results, into);
    place(spec, results, (await Promise.race([spec.run(ctx, into), children.crashed])) ?? into);
  }
}
