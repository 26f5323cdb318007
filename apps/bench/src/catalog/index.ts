/**
 * Section 8 (README.md): tool search (`ToolSearchIndex`, DESIGN §13) in process over the real servers'
 * tools plus generated services: `tools/list` tokens full vs search mode (gpt-tokenizer, o200k_base),
 * recall on the labelled phrasings, search latency, build time and retained heap.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gatewayTools, ToolSearchIndex } from '@switchyard/core';
import { countTokens } from 'gpt-tokenizer';
import type { Log } from '../harness.js';
import { cpuSampler, median, msSince, requestLoop, summarize } from '../measure.js';
import { type Column, columnTable, int } from '../report/format.js';
import type { Sizes } from '../sizes.js';
import {
  type CatalogTool,
  catalogOf,
  generatedTools,
  LABELLED,
  LABELLED_BLIND,
  LABELLED_BLIND_2,
  type LabelledQuery,
  SERVICES,
} from './catalog.js';
import { realTools } from './real.js';

export type CatalogResult = Awaited<ReturnType<typeof runCatalogBenchmark>>;

export async function runCatalogBenchmark(config: Sizes['catalog'], log: Log) {
  log('catalog: listing the tools of server-filesystem, server-memory and server-everything over stdio');
  const real = await realTools();
  const generated = generatedTools(1);
  const catalog = [...real, ...generated];
  const realServers: Record<string, number> = {};
  for (const tool of real) realServers[tool.server] = (realServers[tool.server] ?? 0) + 1;

  log(`catalog: tokens of tools/list at ${config.tokenSizes.join(', ')} tools, full vs search mode`);
  const tokens = config.tokenSizes.map((size) => tokenRow(catalogOf(real, size)));

  log(`catalog: retrieval quality of ${LABELLED.length} labelled queries over ${catalog.length} tools`);
  const index = new ToolSearchIndex(catalog);
  const { tune, heldOut } = halves(LABELLED);
  const quality = {
    all: measureQuality(index, LABELLED),
    tune: measureQuality(index, tune),
    heldOut: measureQuality(index, heldOut),
    blind: measureQuality(index, LABELLED_BLIND),
    blind2: measureQuality(index, LABELLED_BLIND_2),
  };
  const byName = new Map<string, CatalogTool>(catalog.map((tool) => [tool.name, tool]));
  const answers = LABELLED.map(({ query }) =>
    searchAnswerTokens(index.search(query, { limit: config.limit }).map((hit) => byName.get(hit.name)!)),
  );

  const queries = LABELLED.map(({ query }) => query);
  const scale = [];
  for (const size of config.scaleSizes) {
    log(`catalog: build and search at ${size} tools`);
    const sized = catalogOf(real, size);
    const { cost, index: sizedIndex } = measureBuild(sized, config.buildRuns);
    const latency = await measureSearch(sizedIndex, queries, config);
    scale.push({ tools: size, build: cost, latency });
  }
  return {
    config,
    catalog: {
      realTools: real.length,
      realServers,
      services: SERVICES.length,
      generatedTools: generated.length,
      total: catalog.length,
    },
    tokens,
    searchAnswerTokens: median(answers),
    quality,
    scale,
  };
}

/** recall@1, recall@5, MRR over the first `DEPTH` hits (0 past them), and each query not ranked first. */
export type Quality = ReturnType<typeof measureQuality>;

/** How deep MRR looks. */
const DEPTH = 20;

export function measureQuality(index: ToolSearchIndex, labelled: readonly LabelledQuery[]) {
  let at1 = 0;
  let at5 = 0;
  let reciprocal = 0;
  // rank: of the expected tool within the first DEPTH hits (1-based), undefined past them.
  const misses: { query: string; expected: string; rank?: number; first?: string }[] = [];
  for (const { query, expected } of labelled) {
    const hits = index.search(query, { limit: DEPTH });
    const at = hits.findIndex((hit) => hit.name === expected);
    const rank = at < 0 ? undefined : at + 1;
    if (rank === 1) at1++;
    if (rank !== undefined && rank <= 5) at5++;
    if (rank !== undefined) reciprocal += 1 / rank;
    if (rank !== 1) misses.push({ query, expected, rank, first: hits[0]?.name });
  }
  const n = labelled.length;
  return { queries: n, recallAt1: at1 / n, recallAt5: at5 / n, mrr: reciprocal / n, misses };
}

/**
 * The two halves of the labelled set: even positions tune the ranking options (tune.ts), odd positions
 * are held out to report on. Interleaved, so both halves cover every server.
 */
export function halves(labelled: readonly LabelledQuery[]) {
  return {
    tune: labelled.filter((_, i) => i % 2 === 0),
    heldOut: labelled.filter((_, i) => i % 2 === 1),
  };
}

/** `gc()` without starting node with --expose-gc: heap deltas need a collection before each reading. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return () => gc?.();
}

/** Median build time over the runs (ms), every run's, and the heap one index retains after a full GC (MiB). */
export function measureBuild(catalog: readonly CatalogTool[], runs: number) {
  const gc = collector();
  const times: number[] = [];
  let index: ToolSearchIndex | undefined;
  let heapMiB = 0;
  for (let run = 0; run < runs; run++) {
    index = undefined;
    gc();
    const before = process.memoryUsage().heapUsed;
    const start = process.hrtime.bigint();
    index = new ToolSearchIndex(catalog);
    times.push(msSince(start));
    gc();
    heapMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
  }
  return {
    cost: { tools: catalog.length, buildMs: median(times), buildRunsMs: times, heapMiB },
    index: index!,
  };
}

/**
 * `searches` searches of `queries` round-robin (after `warmup`), each timed on its own (ms, measure.ts's
 * request loop, one at a time), and this process's CPU per search (ms): what a search costs whatever else
 * the box runs, where wall-clock percentiles also count time spent waiting for a core.
 */
export async function measureSearch(
  index: ToolSearchIndex,
  queries: readonly string[],
  { warmup, searches, limit }: Sizes['catalog'],
) {
  const search = async (i: number) => index.search(queries[i % queries.length]!, { limit });
  await requestLoop(warmup, 1, search, () => {});
  const cpu = cpuSampler()();
  const { latencies } = await requestLoop(searches, 1, search, () => {});
  return { tools: index.size, limit, cpuMsPerSearch: cpu(searches).client / 1000, ...summarize(latencies) };
}

/** A tool as `tools/list` hands it to a client (no `server`: that is the gateway's bookkeeping). */
function listed({ server: _server, ...tool }: CatalogTool): Omit<CatalogTool, 'server'> {
  return tool;
}

/** The `alwaysList` of the measurement: everyday tools of the real servers, present in every catalog size. */
const ALWAYS_LIST = ['filesystem__read_text_file', 'filesystem__write_file', 'memory__search_nodes'];

const tokensOf = (value: unknown): number => countTokens(JSON.stringify(value));

/**
 * Tokens of the `tools/list` result in full mode (every tool of the catalog) and in search mode (the
 * `alwaysList` tools, then the gateway's own `search_tools` and `call_tool` exactly as its `tools/list`
 * shows them), and 1 − search / full as a percentage.
 */
function tokenRow(catalog: readonly CatalogTool[]) {
  const full = tokensOf({ tools: catalog.map(listed) });
  const always = catalog.filter((tool) => ALWAYS_LIST.includes(tool.name)).map(listed);
  const search = tokensOf({ tools: [...always, ...gatewayTools(catalog.length)] });
  return { tools: catalog.length, full, search, savedPercent: (1 - search / full) * 100 };
}

/**
 * Tokens of a `search_tools` answer carrying these tools, in `structuredContent` and as text as DESIGN
 * §13 has it (what each search then costs in context).
 */
function searchAnswerTokens(tools: readonly CatalogTool[]): number {
  const found = tools.map(listed);
  return tokensOf({
    content: [{ type: 'text', text: JSON.stringify(found) }],
    structuredContent: { tools: found },
  });
}

const ms = (value: number): string => value.toFixed(3);

const QUALITY: Column<[string, Quality]>[] = [
  ['queries', 'l', ([name]) => name],
  ['n', 'r', ([, q]) => String(q.queries)],
  ['recall@1', 'r', ([, q]) => ms(q.recallAt1)],
  ['recall@5', 'r', ([, q]) => ms(q.recallAt5)],
  ['MRR', 'r', ([, q]) => ms(q.mrr)],
];

export function renderCatalog(result: CatalogResult): string[] {
  const { catalog, config } = result;
  const real = Object.entries(catalog.realServers)
    .map(([server, n]) => `${server} ${n}`)
    .join(', ');
  const out = [
    `8. Tool search over large catalogs (in process, @switchyard/core ToolSearchIndex)`,
    `   catalog: ${catalog.realTools} real tools (${real}; their tools/list over stdio) + ${int.format(catalog.generatedTools)} ` +
      `generated tools of ${catalog.services} services = ${int.format(catalog.total)}; larger sizes add seeded instances of the services`,
    '',
    '8a. tokens of the tools/list result a client puts in context (JSON, o200k_base), full vs search mode',
    '    (search mode: search_tools + call_tool + 3 alwaysList tools)',
    columnTable<CatalogResult['tokens'][number]>(
      [
        ['tools', 'r', (row) => int.format(row.tools)],
        ['full', 'r', (row) => int.format(row.full)],
        ['search', 'r', (row) => int.format(row.search)],
        ['saved', 'r', (row) => `${row.savedPercent.toFixed(1)} %`],
      ],
      result.tokens,
    ),
    `   one search_tools answer with ${config.limit} tools (structuredContent + text): median ${int.format(result.searchAnswerTokens)} tokens`,
    '',
    `8b. retrieval on hand-labelled task phrasings over ${int.format(catalog.total)} tools (even entries tuned the boosts, odd held out)`,
    columnTable(QUALITY, [
      ['held-out half', result.quality.heldOut],
      ['tuning half', result.quality.tune],
      ['all', result.quality.all],
      ['blind (after tuning)', result.quality.blind],
      ['blind 2 (search-recall)', result.quality.blind2],
    ]),
    `   not ranked first (${result.quality.all.misses.length} of the set, ${result.quality.blind.misses.length} of the blind set, ` +
      `${result.quality.blind2.misses.length} of blind 2):`,
    columnTable<Quality['misses'][number]>(
      [
        ['query', 'l', (miss) => (miss.query.length > 60 ? `${miss.query.slice(0, 57)}...` : miss.query)],
        ['expected', 'l', (miss) => miss.expected],
        ['rank', 'r', (miss) => (miss.rank === undefined ? '>20' : String(miss.rank))],
        ['ranked first', 'l', (miss) => miss.first ?? '-'],
      ],
      [...result.quality.all.misses, ...result.quality.blind.misses, ...result.quality.blind2.misses],
      '     ',
    ),
    '',
    `8c. index build and search (limit ${config.limit}; ${int.format(config.searches)} searches of the labelled queries ` +
      `after ${int.format(config.warmup)} warm-up; build: median of ${config.buildRuns})`,
    columnTable<CatalogResult['scale'][number]>(
      [
        ['tools', 'r', (row) => int.format(row.tools)],
        ['build ms', 'r', (row) => row.build.buildMs.toFixed(1)],
        ['heap MiB', 'r', (row) => row.build.heapMiB.toFixed(1)],
        ['search p50 ms', 'r', (row) => ms(row.latency.p50)],
        ['p99 ms', 'r', (row) => ms(row.latency.p99)],
        ['max ms', 'r', (row) => ms(row.latency.max)],
        ['CPU ms/search', 'r', (row) => ms(row.latency.cpuMsPerSearch)],
      ],
      result.scale,
    ),
    '',
  ];
  return out;
}
