import { GatewayError } from '@switchyard/core';
import PQueue from 'p-queue';
import type { ResolvedUpstreamLimits } from './options.js';

/** The p-queue settings for one upstream's limits. */
export interface QueueSettings {
  concurrency: number;
  intervalCap?: number;
  interval?: number;
  strict?: boolean;
}

/**
 * Turns limits into p-queue settings. `requestsPerSecond` r becomes a sliding window (p-queue's
 * `strict` mode) of `intervalCap = max(1, floor(r))` starts per `interval = intervalCap * 1000 / r` ms:
 * exactly r per second on average, never more than `intervalCap` in any window, so fractional rates
 * (0.5 = one call every 2 s) and rates like 2.5 (2 calls per 800 ms) work too.
 */
export function queueSettings(limits: ResolvedUpstreamLimits): QueueSettings {
  const { concurrency, requestsPerSecond: rate } = limits;
  if (rate === undefined) return { concurrency };
  const intervalCap = Math.max(1, Math.floor(rate));
  return { concurrency, intervalCap, interval: (intervalCap * 1000) / rate, strict: true };
}

/** One call to queue: who it goes to and what may cancel it. */
export interface QueuedCall {
  readonly upstream: string;
  readonly method: string;
  /** The downstream request's signal: aborting it takes a waiting call out of the queue. */
  readonly signal?: AbortSignal | undefined;
  /** False for the gateway's own calls: they wait for a slot but are never refused. */
  readonly refusable: boolean;
}

interface Lane {
  readonly queue: PQueue;
  readonly limits: ResolvedUpstreamLimits;
}

/**
 * One p-queue per upstream: at most `concurrency` calls in flight, at most `requestsPerSecond` starts,
 * and at most `maxQueue` calls waiting; a call that would wait beyond that fails at once with
 * `upstream_busy`. Memory is bounded by the configured upstreams times `maxQueue` (plus the gateway's
 * own calls, which are few and never refused).
 *
 * @example
 * const queues = new UpstreamQueues(() => ({ concurrency: 4, maxQueue: 16, requestsPerSecond: undefined }));
 * await queues.run({ upstream: 'docs', method: 'resources/read', refusable: true }, () => send());
 */
export class UpstreamQueues {
  readonly #limitsFor: (upstream: string) => ResolvedUpstreamLimits | undefined;
  readonly #onRefused: (upstream: string) => void;
  readonly #lanes = new Map<string, Lane | undefined>();
  /** Calls still waiting (not yet started), with the upstream each waits for. */
  readonly #waiting = new Map<AbortController, string>();
  #closed = false;

  constructor(
    limitsFor: (upstream: string) => ResolvedUpstreamLimits | undefined,
    onRefused: (upstream: string) => void = () => {},
  ) {
    this.#limitsFor = limitsFor;
    this.#onRefused = onRefused;
  }

  /** Runs `send` when the call's upstream has a free slot; rejects with a GatewayError otherwise. */
  async run<T>(call: QueuedCall, send: () => Promise<T>): Promise<T> {
    const lane = this.#lane(call.upstream);
    if (lane === undefined) return send();
    if (this.#closed) throw GatewayError.upstreamUnavailable(call.upstream, 'gateway shutting down');
    if (call.signal?.aborted) throw GatewayError.cancelled(call.method);
    // The queue sees a signal of our own that is aborted only while the call waits: once started, the
    // call runs to completion (the upstream request honours the downstream signal itself), so a
    // cancelled running call keeps its slot until the upstream has really let go of it.
    const waiting = new AbortController();
    const onAbort = (): void => waiting.abort(GatewayError.cancelled(call.method));
    const stopWaiting = (): void => {
      call.signal?.removeEventListener('abort', onAbort);
      this.#waiting.delete(waiting);
    };
    call.signal?.addEventListener('abort', onAbort, { once: true });
    this.#waiting.set(waiting, call.upstream);
    let started = false;
    const done = lane.queue.add(
      () => {
        started = true;
        stopWaiting();
        return send();
      },
      { signal: waiting.signal },
    );
    // p-queue starts a task synchronously inside add() when it can, so here `started` tells whether
    // the call had to wait; refuse it if the waiting room was already full.
    if (!started && call.refusable && lane.queue.size > lane.limits.maxQueue) {
      this.#onRefused(call.upstream);
      waiting.abort(GatewayError.upstreamBusy(call.upstream, lane.limits.maxQueue));
    }
    try {
      return await done;
    } catch (error) {
      throw GatewayError.fromUnknown(error);
    } finally {
      stopWaiting();
    }
  }

  /** Calls waiting for a slot, per upstream that has limits. */
  *waitingByUpstream(): Iterable<[upstream: string, waiting: number]> {
    for (const [upstream, lane] of this.#lanes) if (lane) yield [upstream, lane.queue.size];
  }

  /** Fails every waiting call with `upstream_unavailable` and refuses new ones; running calls finish. */
  close(): void {
    this.#closed = true;
    for (const [waiting, upstream] of [...this.#waiting]) {
      waiting.abort(GatewayError.upstreamUnavailable(upstream, 'gateway shutting down'));
    }
    for (const lane of this.#lanes.values()) lane?.queue.clear();
    this.#lanes.clear();
  }

  #lane(upstream: string): Lane | undefined {
    if (this.#lanes.has(upstream)) return this.#lanes.get(upstream);
    const limits = this.#limitsFor(upstream);
    const lane = limits === undefined ? undefined : { queue: new PQueue(queueSettings(limits)), limits };
    // Keyed by configured upstream names only (the gateway calls no others), so the map stays small.
    if (!this.#closed) this.#lanes.set(upstream, lane);
    return lane;
  }
}
