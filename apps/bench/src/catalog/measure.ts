/** In-process costs of the index: build time and retained heap, and search latency percentiles. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ToolSearchIndex } from '@switchyard/core';
import { type LatencySummary, median, msSince, summarize } from '../stats.js';
import type { CatalogTool } from './model.js';

/** `gc()` without starting node with --expose-gc: heap deltas need a collection before each reading. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return () => gc?.();
}

export interface BuildCost {
  tools: number;
  /** Median build time over the runs (ms). */
  buildMs: number;
  buildRunsMs: number[];
  /** Heap retained by one index after a full collection (MiB). */
  heapMiB: number;
}

export function measureBuild(
  catalog: readonly CatalogTool[],
  runs: number,
): { cost: BuildCost; index: ToolSearchIndex } {
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

export interface SearchLatency extends LatencySummary {
  tools: number;
  limit: number;
  /**
   * This process's CPU time per search, averaged over the timed searches (ms): what a search costs
   * whatever else the box runs, where wall-clock percentiles also count time spent waiting for a core.
   */
  cpuMsPerSearch: number;
}

/** `count` searches of `queries` round-robin (after `warmup`), each timed on its own (ms). */
export function measureSearch(
  index: ToolSearchIndex,
  queries: readonly string[],
  { warmup, count, limit }: { warmup: number; count: number; limit: number },
): SearchLatency {
  for (let i = 0; i < warmup; i++) index.search(queries[i % queries.length]!, { limit });
  const samples = new Float64Array(count);
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    index.search(queries[i % queries.length]!, { limit });
    samples[i] = msSince(start);
  }
  const used = process.cpuUsage(cpu);
  const cpuMsPerSearch = (used.user + used.system) / 1000 / count;
  return { tools: index.size, limit, cpuMsPerSearch, ...summarize(samples) };
}
