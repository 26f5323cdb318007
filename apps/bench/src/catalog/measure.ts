/** In-process costs of the index: build time and retained heap, and search latency percentiles. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ToolSearchIndex } from '@switchyard/core';
import { median, msSince, summarize } from '../stats.js';
import type { CatalogTool } from './model.js';

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
 * `count` searches of `queries` round-robin (after `warmup`), each timed on its own (ms), and this process's
 * CPU per search (ms): what a search costs whatever else the box runs, where wall-clock percentiles also
 * count time spent waiting for a core.
 */
export function measureSearch(
  index: ToolSearchIndex,
  queries: readonly string[],
  { warmup, count, limit }: { warmup: number; count: number; limit: number },
) {
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
