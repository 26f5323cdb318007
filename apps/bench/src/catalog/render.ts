/** The catalog section of the table. */
import { type Column, columnTable, int } from '../report/format.js';
import type { CatalogResult } from './index.js';
import type { Quality } from './quality.js';

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
