/**
 * The second stage of a search: among the best BM25 matches, a tool whose name starts with an action the
 * query asks for moves up. Tool names are `<verb>_<object>` (`send_campaign`, `create_campaign`,
 * `count_source_maps`), and the verb is what tells apart the tools of one object: BM25 alone ranks
 * `create_campaign` over `send_campaign` for "send the newsletter to the list" because the creating
 * tool's longer description says more about newsletters and lists. The query's action is any of the
 * words it is searched with (its own, their roots, their expansions: "email the team" is searched with
 * `send`), so the names are matched on the query terms as the first stage made them.
 */

/**
 * Only the first this many BM25 hits are re-ranked: the boost reorders close candidates rather than
 * lifting weak matches from far down, and a search costs the same however many tools share a word.
 */
export const RERANK_DEPTH = 50;

/** One scored tool: its index id and its BM25 score (MiniSearch's result, mutated in place). */
export interface Scored {
  id: unknown;
  score: number;
}

/**
 * Multiplies by `1 + boost` the score of each of the first RERANK_DEPTH `results` (best first) whose
 * action (`actionOf`, the first term of its own name) is among the query's `terms`, then restores the
 * order of that head; what lies below it keeps its order.
 */
export function boostActions<T extends Scored>(
  results: T[],
  terms: ReadonlyMap<string, number>,
  actionOf: (id: number) => string | undefined,
  boost: number,
): void {
  const depth = Math.min(RERANK_DEPTH, results.length);
  let changed = false;
  for (let i = 0; i < depth; i++) {
    const result = results[i]!;
    const action = actionOf(result.id as number);
    if (action === undefined || !terms.has(action)) continue;
    result.score *= 1 + boost;
    changed = true;
  }
  if (!changed) return;
  const head = results.slice(0, depth).sort((a, b) => b.score - a.score);
  results.splice(0, depth, ...head);
}
