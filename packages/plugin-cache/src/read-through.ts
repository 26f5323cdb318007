import {
  CACHE_STATUS_KEY,
  type CacheStatus,
  GatewayError,
  NOT_EXPOSED_KEY,
  type Outcome,
  type RequestContext,
} from '@switchyard/core';
import { type Audience, copyResult, encodedBytes, freshnessOf, privateKey, sharedKey } from './freshness.js';
import type { CacheMetrics } from './metrics.js';
import type { ReadTicket, ResourceCache } from './resource-cache.js';
import { isRetry, needsInput } from './round-trips.js';
import type { SecondLevel, SecondLevelHit, Tag } from './second-level.js';

/** A leader's upstream read that concurrent identical reads wait for instead of reading themselves. */
interface Flight {
  readonly identity: string;
  /** The URI's generation when the upstream read started; undefined while the watch is being set up. */
  generation: number | undefined;
  readonly done: Promise<Shared>;
}

/** What a leader hands its followers: a snapshot of its result and who may reuse it, or nothing. */
type Shared = { ok: true; result: Record<string, unknown>; audience: Audience } | { ok: false };

const ABORTED = Symbol('aborted');
const NOTHING: Shared = { ok: false };

/**
 * The `resources/read` middleware: serves hits, joins identical reads in flight, reads through on a
 * miss and stores what may be stored. Every read's cache status goes to `ctx.state`.
 *
 * With a second level (a shared store), a first-level miss looks there before reading upstream (an L2
 * hit is a `hit`, kept in the first level too), and what is read upstream is written to both. While
 * the store is unavailable under `onUnavailable: 'refuse'`, reads go upstream alone (`bypass`): the
 * first level may have missed other replicas' invalidations.
 */
export class ReadThrough {
  readonly #cache: ResourceCache;
  readonly #metrics: CacheMetrics;
  readonly #ttlMs: number;
  readonly #l2: SecondLevel | undefined;
  readonly #flights = new Map<string, Flight>();
  #closed = false;

  constructor(cache: ResourceCache, metrics: CacheMetrics, ttlMs: number, l2?: SecondLevel) {
    this.#cache = cache;
    this.#metrics = metrics;
    this.#ttlMs = ttlMs;
    this.#l2 = l2;
  }

  /**
   * The request hook: only `resources/read` is cached; anything else (tool calls, prompt gets, lists)
   * passes through untouched. The retry of a multi round-trip read bypasses the cache.
   */
  handle(ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome> {
    const uri = ctx.params.uri;
    if (ctx.method !== 'resources/read' || this.#closed || typeof uri !== 'string' || uri.length === 0) {
      return next();
    }
    // A read of what the caller's endpoint does not expose is refused as unknown: a cached copy read
    // elsewhere (the root endpoint, another virtual server) must not answer it.
    if (ctx.state.get(NOT_EXPOSED_KEY) === true) return next();
    if (isRetry(ctx) || this.#l2?.mode === 'refuse') return this.#bypass(ctx, next);
    const hit = this.#cache.lookup(uri, ctx.identity.id);
    if (hit) {
      const result = copyResult(hit.read.result);
      if (hit.remainingTtlMs !== undefined) result.ttlMs = hit.remainingTtlMs;
      this.#record(ctx, 'hit');
      return Promise.resolve({ ok: true, result });
    }
    return this.#joinOrLead(ctx, next, uri, true);
  }

  /** Reads for this request alone: neither served from the cache, nor stored, nor shared. */
  async #bypass(ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome> {
    const outcome = await next();
    this.#record(ctx, 'bypass');
    return outcome;
  }

  /** Stops caching new reads (reads in flight finish, but store nothing: the cache is closed too). */
  close(): void {
    this.#closed = true;
  }

  /** A read in flight may be joined unless its URI was invalidated after the upstream read started. */
  #joinable(uri: string, flight: Flight): boolean {
    return flight.generation === undefined || flight.generation === this.#cache.generation(uri);
  }

  /** Joins a joinable read in flight (once more after a failed join when `mayRetry`), else leads one. */
  #joinOrLead(
    ctx: RequestContext,
    next: () => Promise<Outcome>,
    uri: string,
    mayRetry: boolean,
  ): Promise<Outcome> {
    const flight = this.#flights.get(uri);
    if (flight && this.#joinable(uri, flight)) return this.#follow(ctx, next, uri, flight, mayRetry);
    return this.#lead(ctx, next, uri);
  }

  async #follow(
    ctx: RequestContext,
    next: () => Promise<Outcome>,
    uri: string,
    flight: Flight,
    mayRetry: boolean,
  ): Promise<Outcome> {
    const shared = await untilAborted(flight.done, ctx.signal);
    if (shared === ABORTED) {
      ctx.state.set(CACHE_STATUS_KEY, 'coalesced' satisfies CacheStatus);
      return { ok: false, error: GatewayError.cancelled(ctx.method) };
    }
    if (shared.ok && (shared.audience === 'shared' || flight.identity === ctx.identity.id)) {
      this.#record(ctx, 'coalesced');
      return { ok: true, result: copyResult(shared.result) };
    }
    // Failed, cancelled, or private to someone else: read for ourselves, or join the read another
    // follower of the same flight has just started (once, so a follower never chases reads forever).
    return mayRetry ? this.#joinOrLead(ctx, next, uri, false) : this.#lead(ctx, next, uri);
  }

  async #lead(ctx: RequestContext, next: () => Promise<Outcome>, uri: string): Promise<Outcome> {
    const ticket = this.#cache.begin(uri);
    let settle: (shared: Shared) => void = () => {};
    const flight: Flight = {
      identity: ctx.identity.id,
      generation: undefined,
      done: new Promise<Shared>((resolve) => {
        settle = resolve;
      }),
    };
    const current = this.#flights.get(uri);
    if (!current || !this.#joinable(uri, current)) this.#flights.set(uri, flight);
    let shared = NOTHING;
    let status: CacheStatus = 'miss';
    try {
      // Watch first, then read: an update between the read and the subscription would go unseen.
      if ((await untilAborted(ticket.watched, ctx.signal)) === ABORTED) {
        ctx.state.set(CACHE_STATUS_KEY, status);
        return { ok: false, error: GatewayError.cancelled(ctx.method) };
      }
      flight.generation = ticket.start();
      let tag: Tag | undefined;
      if (this.#l2?.mode === 'use') {
        // After start(): an invalidation heard during the lookup keeps its answer out of the first level.
        const found = await untilAborted(this.#l2.lookup(uri, ctx.identity.id), ctx.signal);
        if (found === ABORTED) {
          ctx.state.set(CACHE_STATUS_KEY, status);
          return { ok: false, error: GatewayError.cancelled(ctx.method) };
        }
        if (found.hit) {
          shared = { ok: true, result: found.hit.result, audience: found.hit.audience };
          this.#record(ctx, 'hit');
          return { ok: true, result: this.#fromSecondLevel(ctx, uri, found.hit, ticket) };
        }
        tag = found.tag;
      }
      const outcome = await next();
      if (outcome.ok) {
        const stored = this.#keep(ctx, uri, outcome.result, ticket);
        // Not when an invalidation overtook the read here (the tag catches those heard by other replicas).
        if (tag && stored.entry && this.#l2 && ticket.current())
          await this.#l2.write(tag, uri, ctx.identity.id, stored.entry);
        shared = stored.shared;
        status = stored.status;
      }
      this.#record(ctx, status);
      return outcome;
    } finally {
      ticket.end();
      if (this.#flights.get(uri) === flight) this.#flights.delete(uri);
      settle(shared);
    }
  }

  /** Keeps a second-level hit in the first level; returns the caller's copy (with its remaining TTL). */
  #fromSecondLevel(
    ctx: RequestContext,
    uri: string,
    hit: SecondLevelHit,
    ticket: ReadTicket,
  ): Record<string, unknown> {
    const bytes = encodedBytes(hit.result);
    if (bytes !== undefined) {
      const key = hit.audience === 'shared' ? sharedKey(uri) : privateKey(ctx.identity.id, uri);
      const read = { uri, result: hit.result, bytes, statesTtl: hit.statesTtl };
      ticket.store(key, read, hit.remainingMs);
    }
    const result = copyResult(hit.result);
    if (hit.statesTtl) result.ttlMs = hit.remainingMs;
    return result;
  }

  /**
   * Stores a fresh result when its hints allow; returns what followers may reuse, the status, and what
   * the second level may store.
   */
  #keep(ctx: RequestContext, uri: string, result: Record<string, unknown>, ticket: ReadTicket) {
    // Input required: the result belongs to this request; its followers read for themselves.
    if (needsInput(result)) return { shared: NOTHING, status: 'bypass' as const };
    const freshness = freshnessOf(result, this.#ttlMs);
    // One snapshot for the cache and the followers: the leader's own chain may change its object.
    const snapshot = copyResult(result);
    const shared: Shared = { ok: true, result: snapshot, audience: freshness.audience };
    if (!freshness.cacheable) return { shared, status: 'bypass' as const };
    const bytes = encodedBytes(result);
    if (bytes !== undefined) {
      const key = freshness.audience === 'shared' ? sharedKey(uri) : privateKey(ctx.identity.id, uri);
      ticket.store(key, { uri, result: snapshot, bytes, statesTtl: freshness.statesTtl }, freshness.ttlMs);
    }
    const { audience, statesTtl, ttlMs } = freshness;
    return { shared, status: 'miss' as const, entry: { result: snapshot, audience, statesTtl, ttlMs } };
  }

  #record(ctx: RequestContext, status: CacheStatus): void {
    ctx.state.set(CACHE_STATUS_KEY, status);
    this.#metrics.read(status);
  }
}

/** Resolves like `promise`, or with ABORTED as soon as `signal` aborts (the listener is removed after). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
