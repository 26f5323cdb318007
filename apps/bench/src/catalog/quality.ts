/** Retrieval quality on the labelled task phrasings: recall@1, recall@5, MRR, and what was missed. */
import type { ToolSearchIndex } from '@switchyard/core';
import type { LabelledQuery } from './data.js';

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
export function halves(labelled: readonly LabelledQuery[]): {
  tune: LabelledQuery[];
  heldOut: LabelledQuery[];
} {
  return {
    tune: labelled.filter((_, i) => i % 2 === 0),
    heldOut: labelled.filter((_, i) => i % 2 === 1),
  };
}
