/**
 * Section 8, the catalog (`--only catalog`): what tool search (DESIGN §13, `@switchyard/core`'s
 * `ToolSearchIndex`) buys a client and costs the gateway, in process. A catalog of the published
 * servers' real tools plus generated services; the tokens of `tools/list` full vs search mode; recall on
 * hand-labelled task phrasings; search latency, build time and heap at 3,000 and 30,000 tools.
 */
import { ToolSearchIndex } from '@switchyard/core';
import type { Sizes } from '../sizes.js';
import { median } from '../stats.js';
import { catalogOf, generatedTools, SERVICES } from './catalog.js';
import { LABELLED, LABELLED_BLIND, LABELLED_BLIND_2 } from './data.js';
import { measureBuild, measureSearch } from './measure.js';
import type { CatalogTool } from './model.js';
import { halves, measureQuality } from './quality.js';
import { realTools } from './real.js';
import { searchAnswerTokens, tokenRow } from './tokens.js';

export type CatalogConfig = Sizes['catalog'];

export type CatalogResult = Awaited<ReturnType<typeof runCatalogBenchmark>>;

export async function runCatalogBenchmark(config: CatalogConfig, log: (message: string) => void) {
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
    const latency = measureSearch(sizedIndex, queries, {
      warmup: config.warmup,
      count: config.searches,
      limit: config.limit,
    });
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
