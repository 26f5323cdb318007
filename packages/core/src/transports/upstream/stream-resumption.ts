import type { IncomingMessage } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { isEventStream } from './http-wire.js';

type RequestId = string | number;

/** Where the response streams of one of our requests stand: what resuming them needs. */
export interface StreamPosition {
  /** The id of the last event the upstream sent on them (the `Last-Event-ID` to resume from). */
  lastEventId?: string;
  /** The reconnection delay the upstream asked for with an SSE `retry` field, in ms. */
  retryMs?: number;
  /** JSON-RPC messages they delivered so far: a resumption that adds none was dry. */
  messages: number;
}

/** What resuming needs of the transport. */
export interface ResumptionDeps {
  /** Sends `GET` with `Last-Event-ID` (and the session's headers) for `request`'s stream. */
  reconnect(request: JSONRPCMessage, lastEventId: string, signal: AbortSignal): Promise<IncomingMessage>;
  /** Reads a resumed stream of `request` on from `position` (it calls `resume` again if it ends unanswered). */
  read(res: IncomingMessage, request: JSONRPCMessage, position: StreamPosition, signal: AbortSignal): void;
  /** Fails request `id` with `upstream_unavailable`, `detail` saying why. */
  fail(id: RequestId, detail: string): void;
  /** The upstream answered 404: it no longer knows the session. */
  sessionLost(): void;
  /**
   * Request `id`'s stream was closed unanswered and will be resumed after `retryMs` (the upstream's, if it
   * sent one); `resumeNow` resumes it at once instead (a downstream client that polls the gateway came back).
   */
  polled?(id: RequestId, retryMs: number | undefined, resumeNow: () => void): void;
}

/** Failed reconnections (network errors, error statuses) in a row before the request fails. */
export const MAX_FAILED_RESUMPTIONS = 3;
/** The longest `retry` the gateway waits; an upstream asking for more fails the request instead. */
export const MAX_RETRY_MS = 300_000;
/** Waits without a `retry` from the upstream, by attempt (the GET stream's ladder). */
const BACKOFF_MS = [250, 1_000, 5_000, 15_000, 30_000];

interface Resumption {
  request: JSONRPCMessage;
  position: StreamPosition;
  /** Resumptions in a row that delivered no message. */
  dry: number;
  /** Reconnections in a row that failed. */
  failures: number;
  /** `position.messages` when the current resumed stream opened. */
  seen: number;
  timer?: NodeJS.Timeout;
  /** Ends the reconnection in flight, or the resumed stream being read. */
  abort: AbortController;
}

/**
 * Follows requests whose response stream the upstream closed before answering, having sent an event id
 * (SEP-1699 polling, or a dropped connection): as the SDK's own client does, it waits the `retry` the
 * upstream asked for (a client MUST respect it; without one, a backoff), reconnects with `GET` +
 * `Last-Event-ID` and reads on until the answer. Bounded: a stream that brings nothing makes the next wait
 * longer (never shorter than `retry`), reconnections that fail `MAX_FAILED_RESUMPTIONS` times in a row or
 * a `retry` over `MAX_RETRY_MS` fail the request, and the request's own deadline and cancellation (`stop`)
 * end it.
 */
export class StreamResumptions {
  readonly #deps: ResumptionDeps;
  readonly #pending = new Map<RequestId, Resumption>();

  constructor(deps: ResumptionDeps) {
    this.#deps = deps;
  }

  /** Whether some request is being resumed. */
  get active(): boolean {
    return this.#pending.size > 0;
  }

  /** `request`'s stream ended unanswered at `position` (which has an event id): resume it. */
  resume(request: JSONRPCMessage, position: StreamPosition): void {
    const id = (request as { id: RequestId }).id;
    let r = this.#pending.get(id);
    if (r === undefined) {
      r = { request, position, dry: 0, failures: 0, seen: position.messages, abort: new AbortController() };
      this.#pending.set(id, r);
    } else {
      r.dry = position.messages > r.seen ? 0 : r.dry + 1;
    }
    this.#schedule(r, this.#wait(r.position.retryMs, r.dry));
    if (this.#pending.get(id) === r) this.#deps.polled?.(id, r.position.retryMs, () => this.#now(id, r));
  }

  /** Reconnects at once if `r` is still waiting for its turn (not already reconnecting or reading). */
  #now(id: RequestId, r: Resumption): void {
    if (this.#pending.get(id) !== r || r.timer === undefined) return;
    clearTimeout(r.timer);
    this.#reconnect(id, r);
  }

  /** Request `id` is over (answered, cancelled): no more reconnecting; `abort` ends its open stream too. */
  stop(id: RequestId, abort: boolean): void {
    const r = this.#pending.get(id);
    if (r === undefined) return;
    this.#pending.delete(id);
    clearTimeout(r.timer);
    if (abort) r.abort.abort();
  }

  close(): void {
    for (const id of [...this.#pending.keys()]) this.stop(id, true);
  }

  /** How long to wait before the next reconnection: `retry`, and longer while streams bring nothing. */
  #wait(retryMs: number | undefined, misses: number): number {
    const backoff = misses === 0 ? 0 : BACKOFF_MS[Math.min(misses - 1, BACKOFF_MS.length - 1)]!;
    return Math.max(retryMs ?? BACKOFF_MS[0]!, backoff);
  }

  #schedule(r: Resumption, delay: number): void {
    const id = (r.request as { id: RequestId }).id;
    if (delay > MAX_RETRY_MS) {
      this.#fail(
        r,
        `The upstream closed the response stream and asked to be polled again in ${delay} ms, longer than the gateway waits (${MAX_RETRY_MS} ms).`,
      );
      return;
    }
    clearTimeout(r.timer);
    r.timer = setTimeout(() => this.#reconnect(id, r), delay);
    r.timer.unref();
  }

  #reconnect(id: RequestId, r: Resumption): void {
    r.timer = undefined;
    if (this.#pending.get(id) !== r) return;
    const { lastEventId } = r.position;
    if (lastEventId === undefined) return;
    r.abort = new AbortController();
    const { signal } = r.abort;
    this.#deps.reconnect(r.request, lastEventId, signal).then(
      (res) => {
        if (this.#pending.get(id) !== r || signal.aborted) {
          res.destroy();
          return;
        }
        const status = res.statusCode ?? 0;
        if (status === 200 && isEventStream(res)) {
          r.failures = 0;
          r.seen = r.position.messages;
          this.#deps.read(res, r.request, r.position, signal);
          return;
        }
        res.resume();
        if (status === 404) {
          this.#fail(
            r,
            'The upstream closed the response stream and no longer knows the session (HTTP 404 on resuming it).',
          );
          this.#deps.sessionLost();
        } else if (status === 405 || status === 400) {
          this.#fail(r, `The upstream closed the response stream and refused to resume it (HTTP ${status}).`);
        } else {
          this.#failed(r, `HTTP ${status}`);
        }
      },
      (error: unknown) => {
        if (this.#pending.get(id) === r && !signal.aborted) this.#failed(r, errorText(error));
      },
    );
  }

  /** A reconnection failed: try again after a backoff, or give up after too many in a row. */
  #failed(r: Resumption, why: string): void {
    r.failures += 1;
    if (r.failures >= MAX_FAILED_RESUMPTIONS) {
      this.#fail(
        r,
        `The upstream closed the response stream and could not be reached to resume it (${r.failures} attempts; last: ${why}).`,
      );
      return;
    }
    this.#schedule(r, this.#wait(r.position.retryMs, r.failures));
  }

  #fail(r: Resumption, detail: string): void {
    const id = (r.request as { id: RequestId }).id;
    this.stop(id, true);
    this.#deps.fail(id, detail);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
