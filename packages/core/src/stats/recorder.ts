import type { RequestContext } from '../context.js';
import { registeredErrorReason } from '../error-reasons.js';
import type { CoreErrorReason } from '../errors.js';
import type { Outcome } from '../middleware.js';
import { CACHE_STATUS_KEY, type CacheStatus } from '../state-keys.js';
import { clipped } from './clip.js';
import { LatencyWindow } from './latency-window.js';
import { RingBuffer } from './ring.js';
import { RequestSeries, type SeriesBucket } from './series.js';
import { requestTarget } from './target.js';

/** One downstream request's outcome, as the status page lists the latest ones. */
export interface RequestRecord {
  /** ISO time the request finished. */
  time: string;
  identity: string;
  session: string;
  transport: string;
  method: string;
  upstream?: string;
  /** The exposed URI, tool or prompt name the request addressed (see `requestTarget`). */
  target?: string;
  outcome: 'ok' | 'error';
  code?: number;
  reason?: string;
  durationMs: number;
  cache?: CacheStatus;
}

/** Per-upstream call figures (every call the gateway made to it, list pages included). */
export interface UpstreamCallStats {
  calls: number;
  errors: number;
  p50Ms?: number;
  p99Ms?: number;
}

export interface StatsSnapshot {
  startedAt: string;
  requests: { total: number; errors: number; p50Ms?: number; p99Ms?: number };
  /** Requests refused for a policy reason (`data.reason`), e.g. `rate_limited`, `forbidden`. */
  refusals: Record<string, number>;
  /** Read outcomes the cache plugin reported in `ctx.state` (all zero without the plugin). */
  cache: Record<CacheStatus, number> & { hitRatio?: number };
  upstreams: Record<string, UpstreamCallStats>;
  series: { bucketMs: number; buckets: SeriesBucket[] };
  recent: RequestRecord[];
}

/** Core's reasons counted as refusals (policy said no), as opposed to failures; registered ones say `refusal`. */
const REFUSALS: ReadonlySet<string> = new Set([
  'rate_limited',
  'forbidden',
  'busy',
] satisfies CoreErrorReason[]);

const isRefusal = (reason: string): boolean =>
  REFUSALS.has(reason) || registeredErrorReason(reason)?.refusal === true;

/**
 * In-memory request statistics for the operator's status page: totals, latency percentiles over a
 * sliding window, a time series of the last ~10 minutes and the latest request outcomes. Fed by the
 * gateway for every downstream request and upstream call; O(1) per event, bounded memory: the strings
 * a request chose (its method, target, reason; the identity its credential named) are kept clipped.
 */
export class GatewayStats {
  readonly #startedAt = Date.now();
  readonly #series: RequestSeries;
  /** The latest outcomes, timed by epoch ms: the ISO `time` is written when the status page asks. */
  readonly #recent: RingBuffer<{ at: number; record: Omit<RequestRecord, 'time'> }>;
  readonly #latency = new LatencyWindow();
  readonly #upstreams = new Map<string, { calls: number; errors: number; latency: LatencyWindow }>();
  readonly #refusals: Record<string, number> = {};
  readonly #cache: Record<CacheStatus, number> = { hit: 0, miss: 0, coalesced: 0, bypass: 0 };
  #total = 0;
  #errors = 0;

  constructor(options: { recent?: number; bucketMs?: number; buckets?: number } = {}) {
    this.#series = new RequestSeries(options);
    this.#recent = new RingBuffer(options.recent ?? 50);
  }

  /** Records a finished downstream request. */
  request(ctx: RequestContext, outcome: Outcome, durationMs: number): void {
    const now = Date.now();
    this.#total += 1;
    this.#latency.record(durationMs);
    this.#series.record(now, durationMs, !outcome.ok);
    const record: Omit<RequestRecord, 'time'> = {
      identity: clipped(ctx.identity.id),
      session: ctx.session.id,
      transport: ctx.session.transport,
      method: clipped(ctx.method),
      upstream: ctx.target?.upstream,
      target: requestTarget(ctx),
      outcome: outcome.ok ? 'ok' : 'error',
      durationMs: Math.round(durationMs * 10) / 10,
    };
    const cache = ctx.state.get(CACHE_STATUS_KEY) as CacheStatus | undefined;
    if (cache !== undefined && cache in this.#cache) {
      this.#cache[cache] += 1;
      record.cache = cache;
    }
    if (!outcome.ok) {
      this.#errors += 1;
      record.code = outcome.error.code;
      const reason = outcome.error.data?.reason;
      if (typeof reason === 'string') {
        record.reason = clipped(reason);
        if (isRefusal(reason)) this.#refusals[reason] = (this.#refusals[reason] ?? 0) + 1;
      }
    }
    this.#recent.push({ at: now, record });
  }

  /** Runs and measures one call to an upstream. */
  async upstreamCall<T>(upstream: string, run: () => Promise<T>): Promise<T> {
    let entry = this.#upstreams.get(upstream);
    if (!entry) {
      entry = { calls: 0, errors: 0, latency: new LatencyWindow() };
      this.#upstreams.set(upstream, entry);
    }
    const started = performance.now();
    entry.calls += 1;
    try {
      return await run();
    } catch (error) {
      entry.errors += 1;
      throw error;
    } finally {
      entry.latency.record(performance.now() - started);
    }
  }

  snapshot(): StatsSnapshot {
    const lookups = this.#cache.hit + this.#cache.miss + this.#cache.coalesced;
    const upstreams: Record<string, UpstreamCallStats> = {};
    for (const [name, u] of this.#upstreams) {
      const p = u.latency.percentiles();
      upstreams[name] = { calls: u.calls, errors: u.errors, p50Ms: p?.p50, p99Ms: p?.p99 };
    }
    const p = this.#latency.percentiles();
    return {
      startedAt: new Date(this.#startedAt).toISOString(),
      requests: { total: this.#total, errors: this.#errors, p50Ms: p?.p50, p99Ms: p?.p99 },
      refusals: { ...this.#refusals },
      cache: {
        ...this.#cache,
        hitRatio: lookups > 0 ? (this.#cache.hit + this.#cache.coalesced) / lookups : undefined,
      },
      upstreams,
      series: { bucketMs: this.#series.bucketMs, buckets: this.#series.snapshot(Date.now()) },
      recent: this.#recent
        .toArray()
        .reverse()
        .map(({ at, record }) => ({ time: new Date(at).toISOString(), ...record })),
    };
  }
}
