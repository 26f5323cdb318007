/** The catalog section of the table. */
import { int, table } from '../report/format.js';
import type { CatalogResult } from './index.js';
import type { Quality } from './quality.js';

const ms = (value: number): string => value.toFixed(3);
const ratio = (value: number): string => value.toFixed(3);

function qualityRow(name: string, quality: Quality): string[] {
  return [
    name,
    String(quality.queries),
    ratio(quality.recallAt1),
    ratio(quality.recallAt5),
    ratio(quality.mrr),
  ];
}

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
    table(
      ['tools', 'full', 'search', 'saved'],
      result.tokens.map((row) => [
        int.format(row.tools),
        int.format(row.full),
        int.format(row.search),
        `${row.savedPercent.toFixed(1)} %`,
      ]),
      'rrrr',
    ),
    `   one search_tools answer with ${config.limit} tools (structuredContent + text): median ${int.format(result.searchAnswerTokens)} tokens`,
    '',
    `8b. retrieval on hand-labelled task phrasings over ${int.format(catalog.total)} tools (even entries tuned the boosts, odd held out)`,
    table(
      ['queries', 'n', 'recall@1', 'recall@5', 'MRR'],
      [
        qualityRow('held-out half', result.quality.heldOut),
        qualityRow('tuning half', result.quality.tune),
        qualityRow('all', result.quality.all),
        qualityRow('blind (after tuning)', result.quality.blind),
        qualityRow('blind 2 (search-recall)', result.quality.blind2),
      ],
      'lrrrr',
    ),
    `   not ranked first (${result.quality.all.misses.length} of the set, ${result.quality.blind.misses.length} of the blind set, ` +
      `${result.quality.blind2.misses.length} of blind 2):`,
    table(
      ['query', 'expected', 'rank', 'ranked first'],
      [...result.quality.all.misses, ...result.quality.blind.misses, ...result.quality.blind2.misses].map(
        (miss) => [
          miss.query.length > 60 ? `${miss.query.slice(0, 57)}...` : miss.query,
          miss.expected,
          miss.rank === undefined ? '>20' : String(miss.rank),
          miss.first ?? '-',
        ],
      ),
      'llrl',
      '     ',
    ),
    '',
    `8c. index build and search (limit ${config.limit}; ${int.format(config.searches)} searches of the labelled queries ` +
      `after ${int.format(config.warmup)} warm-up; build: median of ${config.buildRuns})`,
    table(
      ['tools', 'build ms', 'heap MiB', 'search p50 ms', 'p99 ms', 'max ms', 'CPU ms/search'],
      result.scale.map((row) => [
        int.format(row.tools),
        row.build.buildMs.toFixed(1),
        row.build.heapMiB.toFixed(1),
        ms(row.latency.p50),
        ms(row.latency.p99),
        ms(row.latency.max),
        ms(row.latency.cpuMsPerSearch),
      ]),
      'rrrrrrr',
    ),
    '',
  ];
  return out;
}
