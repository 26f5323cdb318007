/**
 * How the defaults of `DEFAULT_TOOL_SEARCH_OPTIONS` were chosen: coordinate descent over the field boosts
 * and matching options, scored by MRR (then recall@5) on the TUNING half of the labelled phrasings only;
 * the held-out half is reported, never optimised. Run after a build:
 *
 *   node apps/bench/dist/catalog/tune.js
 */
import {
  DEFAULT_TOOL_SEARCH_OPTIONS,
  type SEARCH_FIELDS,
  ToolSearchIndex,
  type ToolSearchOptions,
} from '@switchyard/core';
import { generatedTools } from './catalog.js';
import { LABELLED } from './labelled.js';
import { halves, measureQuality, type Quality } from './quality.js';
import { realTools } from './real.js';

type Knob = {
  name: string;
  values: number[];
  apply: (options: ToolSearchOptions, value: number) => ToolSearchOptions;
};

const boostKnob = (field: (typeof SEARCH_FIELDS)[number], values: number[]): Knob => ({
  name: `boost.${field}`,
  values,
  apply: (options, value) => ({ ...options, boost: { ...options.boost, [field]: value } }),
});

const KNOBS: Knob[] = [
  boostKnob('name', [1, 2, 3, 4, 6, 8]),
  boostKnob('server', [0.5, 1, 2, 3, 4]),
  boostKnob('title', [0, 0.5, 1, 2, 3]),
  boostKnob('description', [0.5, 1, 1.5, 2, 3]),
  boostKnob('params', [0, 0.25, 0.5, 1]),
  boostKnob('paramDescriptions', [0, 0.05, 0.1, 0.25, 0.5]),
  { name: 'synonymWeight', values: [0, 0.3, 0.5, 0.7, 1], apply: (o, v) => ({ ...o, synonymWeight: v }) },
  { name: 'prefix', values: [0, 1], apply: (o, v) => ({ ...o, prefix: v === 1 }) },
  { name: 'prefixWeight', values: [0.1, 0.2, 0.3, 0.5], apply: (o, v) => ({ ...o, prefixWeight: v }) },
  { name: 'fuzzy', values: [0, 0.2], apply: (o, v) => ({ ...o, fuzzy: v }) },
  { name: 'stemming', values: [0, 1], apply: (o, v) => ({ ...o, stemming: v === 1 }) },
  { name: 'bm25.k', values: [0.6, 0.9, 1.2, 1.6, 2], apply: (o, v) => ({ ...o, bm25: { ...o.bm25, k: v } }) },
  { name: 'bm25.b', values: [0.3, 0.5, 0.7, 0.9], apply: (o, v) => ({ ...o, bm25: { ...o.bm25, b: v } }) },
];

const score = (q: Quality): number => q.mrr + q.recallAt5 / 1000;
const line = (q: Quality): string =>
  `recall@1 ${q.recallAt1.toFixed(3)}  recall@5 ${q.recallAt5.toFixed(3)}  MRR ${q.mrr.toFixed(3)}`;

async function main(): Promise<void> {
  const catalog = [...(await realTools()), ...generatedTools(1)];
  const { tune, heldOut } = halves(LABELLED);
  const evaluate = (options: ToolSearchOptions) =>
    measureQuality(new ToolSearchIndex(catalog, options), tune);
  let best = { ...DEFAULT_TOOL_SEARCH_OPTIONS };
  let bestScore = score(evaluate(best));
  process.stdout.write(`start (current defaults), tuning half: ${line(evaluate(best))}\n`);
  for (let pass = 1; pass <= 2; pass++) {
    for (const knob of KNOBS) {
      for (const value of knob.values) {
        const candidate = knob.apply(best, value);
        const s = score(evaluate(candidate));
        if (s > bestScore + 1e-9) {
          best = candidate;
          bestScore = s;
          process.stdout.write(`pass ${pass}: ${knob.name} = ${value} → MRR ${s.toFixed(4)}\n`);
        }
      }
    }
  }
  process.stdout.write(`\nbest options: ${JSON.stringify(best)}\n`);
  process.stdout.write(`tuning half:   ${line(evaluate(best))}\n`);
  const index = new ToolSearchIndex(catalog, best);
  process.stdout.write(`held-out half: ${line(measureQuality(index, heldOut))}\n`);
  process.stdout.write(`all:           ${line(measureQuality(index, LABELLED))}\n`);
}

await main();
