import type { CacheStatus, PluginSetupContext } from '@switchyard/core';
import type { EvictionReason } from './resource-cache.js';

type Meter = PluginSetupContext['meter'];
type Counter = ReturnType<Meter['createCounter']>;
type Gauge = ReturnType<Meter['createObservableGauge']>;
type GaugeCallback = Parameters<Gauge['addCallback']>[0];

/** Metric names the cache reports (through the meter the gateway injects). */
export const CACHE_METRICS = {
  hits: 'switchyard.cache.hits',
  misses: 'switchyard.cache.misses',
  evictions: 'switchyard.cache.evictions',
  bytes: 'switchyard.cache.bytes',
  entries: 'switchyard.cache.entries',
} as const;

/**
 * The cache's counters and gauges. `hits` counts reads answered without an upstream read of their own
 * (`status`: `hit` or `coalesced`), `misses` the others (`status`: `miss` or `bypass`), `evictions`
 * entries that left before being replaced (`reason`); `bytes` and `entries` are observed on collection.
 */
export class CacheMetrics {
  readonly #hits: Counter;
  readonly #misses: Counter;
  readonly #evictions: Counter;
  readonly #gauges: { gauge: Gauge; callback: GaugeCallback }[];

  constructor(meter: Meter, sources: { bytes(): number; entries(): number }) {
    this.#hits = meter.createCounter(CACHE_METRICS.hits, {
      description: 'Reads served without an upstream read of their own (status: hit | coalesced)',
    });
    this.#misses = meter.createCounter(CACHE_METRICS.misses, {
      description: 'Reads that went upstream (status: miss | bypass)',
    });
    this.#evictions = meter.createCounter(CACHE_METRICS.evictions, {
      description: 'Entries removed (reason: update | capacity | ttl | upstream_down | remote | store)',
    });
    const bytes = meter.createObservableGauge(CACHE_METRICS.bytes, {
      description: 'Payload bytes held by the cache',
      unit: 'By',
    });
    const entries = meter.createObservableGauge(CACHE_METRICS.entries, {
      description: 'Entries held by the cache',
    });
    this.#gauges = [
      { gauge: bytes, callback: (result) => result.observe(sources.bytes()) },
      { gauge: entries, callback: (result) => result.observe(sources.entries()) },
    ];
    for (const { gauge, callback } of this.#gauges) gauge.addCallback(callback);
  }

  /** Counts a read by how it was served. */
  read(status: CacheStatus): void {
    if (status === 'hit' || status === 'coalesced') this.#hits.add(1, { status });
    else this.#misses.add(1, { status });
  }

  evicted(reason: EvictionReason): void {
    this.#evictions.add(1, { reason });
  }

  /** Stops observing the gauges (the cache is gone). */
  close(): void {
    for (const { gauge, callback } of this.#gauges) gauge.removeCallback(callback);
  }
}
