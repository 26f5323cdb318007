/**
 * The labelled task phrasings of the catalog bench are well-formed, and tool search still meets its
 * recall targets on them (deterministic: a seeded catalog, the published servers' pinned tool lists,
 * no timing).
 */
import { ToolSearchIndex } from '@switchyard/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CatalogTool } from '../src/catalog/catalog.js';
import { generatedTools, LABELLED, LABELLED_BLIND, LABELLED_BLIND_2 } from '../src/catalog/catalog.js';
import { halves, measureQuality } from '../src/catalog/index.js';
import { realTools } from '../src/catalog/real.js';
import { GOALS } from '../src/report/targets.js';

const normalized = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

describe('catalog bench: labelled phrasings', () => {
  let catalog: CatalogTool[];
  beforeAll(async () => {
    catalog = [...(await realTools()), ...generatedTools(1)];
  }, 60_000);

  it('has at least 100 phrasings, each naming one tool of the catalog, real servers and most services covered', () => {
    expect(LABELLED.length).toBeGreaterThanOrEqual(100);
    const names = new Set(catalog.map((tool) => tool.name));
    for (const { expected } of [...LABELLED, ...LABELLED_BLIND, ...LABELLED_BLIND_2])
      expect(names, expected).toContain(expected);
    const servers = new Set(LABELLED.map(({ expected }) => expected.split('__')[0]));
    for (const real of ['filesystem', 'memory', 'everything']) expect(servers).toContain(real);
    expect(servers.size).toBeGreaterThanOrEqual(30);
    const queries = [...LABELLED, ...LABELLED_BLIND, ...LABELLED_BLIND_2].map(({ query }) =>
      normalized(query),
    );
    expect(new Set(queries).size).toBe(queries.length);
  });

  it('paraphrases: no phrasing equals or contains a whole tool description, or names a tool', () => {
    const descriptions = catalog
      .filter((tool) => tool.description !== undefined)
      .map((tool) => ({ name: tool.name, text: normalized(tool.description!) }));
    const names = catalog.map((tool) => tool.name.toLowerCase());
    const copied: string[] = [];
    for (const { query } of [...LABELLED, ...LABELLED_BLIND, ...LABELLED_BLIND_2]) {
      const text = normalized(query);
      for (const description of descriptions) {
        if (text.includes(description.text))
          copied.push(`"${query}" contains the description of ${description.name}`);
      }
      for (const name of names) if (text.includes(name)) copied.push(`"${query}" names ${name}`);
    }
    expect(copied).toEqual([]);
  });

  it('meets the recall targets on the whole labelled set', () => {
    const index = new ToolSearchIndex(catalog);
    const all = measureQuality(index, LABELLED);
    expect(all.recallAt5).toBeGreaterThanOrEqual(GOALS.recallAt5.bound);
    expect(all.recallAt1).toBeGreaterThanOrEqual(GOALS.recallAt1.bound);
    // The halves are interleaved and cover the set.
    const { tune, heldOut } = halves(LABELLED);
    expect(tune.length + heldOut.length).toBe(LABELLED.length);
  });
});
