import { randomUUID } from 'node:crypto';
import type { Cancellation, CancelSignal } from '../cancellation.js';
import { ErrorCode, GatewayError } from '../errors.js';

/** An input request as a 2026-07-28 `InputRequiredResult` carries it: the bare JSON-RPC request. */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

interface Asked extends InputRequest {
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
}

/** What the call does next: finishes, or needs the client to answer input requests first. */
export type CallStep = { done: Record<string, unknown> } | { inputRequests: Record<string, InputRequest> };

/**
 * A legacy upstream's call on behalf of a modern client (2026-07-28), which cannot be sent requests:
 * the server-to-client requests the upstream makes while the call runs become the `inputRequests` of an
 * input-required result, and the upstream waits (its call suspended, its timeout paused) until the
 * client retries with the answers. One call spans several downstream requests; it lives in this process.
 */
export class SuspendedCall<C = unknown> {
  #id: string | undefined;
  /** Told about each downstream request that continues the call (progress and notifications follow it). */
  onStep: ((request: C) => void) | undefined;
  /** Aborted when the call is given up (the client went away, or never came back). */
  readonly #abort: Cancellation;
  /** Asked by the upstream, not yet handed to the client. */
  readonly #queued: Asked[] = [];
  /** Handed to the client under these keys, not yet answered. */
  readonly #handedOut = new Map<string, Asked>();
  #result: Promise<Record<string, unknown>> | undefined;
  #wake: (() => void) | undefined;
  #seq = 0;

  /** `abort`: the cancellation of the upstream call, which the call's deadline shares. */
  constructor(abort: Cancellation) {
    this.#abort = abort;
  }

  /** Its key among the suspended calls: made when first asked for (most calls finish without being kept). */
  get id(): string {
    this.#id ??= randomUUID();
    return this.#id;
  }

  get signal(): CancelSignal {
    return this.#abort;
  }

  /** The upstream call itself. */
  start(result: Promise<Record<string, unknown>>): void {
    this.#result = result;
    result.catch(() => {}); // a failure is reported by next(), not left unhandled meanwhile
  }

  /** The upstream asks the client something: it is handed out with the next input-required result. */
  ask(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const asked: Asked = { method, params, resolve, reject };
      this.#queued.push(asked);
      // The upstream cancelled its request: forget it wherever it is.
      signal.addEventListener(
        'abort',
        () => {
          const at = this.#queued.indexOf(asked);
          if (at >= 0) this.#queued.splice(at, 1);
          for (const [key, a] of this.#handedOut) if (a === asked) this.#handedOut.delete(key);
          reject(signal.reason);
        },
        { once: true },
      );
      this.#wake?.();
    });
  }

  /** Hands the client's answers to the upstream requests they answer (unanswered ones are asked again). */
  answer(responses: Readonly<Record<string, unknown>> | undefined): void {
    for (const [key, asked] of [...this.#handedOut]) {
      const response = responses?.[key];
      if (response === undefined || response === null || typeof response !== 'object') continue;
      this.#handedOut.delete(key);
      asked.resolve(response as Record<string, unknown>);
    }
  }

  /**
   * Waits for the call to finish or to need input. Requests the upstream makes together (within one
   * turn) are handed out together; requests still unanswered from the last round are handed out again.
   */
  async next(signal: CancelSignal): Promise<CallStep> {
    const result = this.#result;
    if (!result) throw new Error('SuspendedCall.next() before start()');
    if (this.#queued.length === 0 && this.#handedOut.size === 0) {
      const asked = new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      let onAbort: (() => void) | undefined;
      const cancelled = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(GatewayError.aborted('input-required call', signal.reason));
        onAbort = () => reject(GatewayError.aborted('input-required call', signal.reason));
        signal.addEventListener('abort', onAbort, { once: true });
      });
      const first = await Promise.race([
        result.then((done) => ({ done })),
        asked.then(() => undefined),
        cancelled,
      ]).finally(() => {
        // The request's signal outlives this wait (and, on Node 20, young-generation GCs): nothing of the
        // call stays hanging on it.
        if (onAbort) signal.removeEventListener('abort', onAbort);
      });
      this.#wake = undefined;
      if (first) return first;
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const asked of this.#queued.splice(0)) this.#handedOut.set(`input-${++this.#seq}`, asked);
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, { method, params }] of this.#handedOut) inputRequests[key] = { method, params };
    return { inputRequests };
  }

  /** Gives the call up: the upstream's pending requests fail and its call is cancelled. */
  cancel(reason: string): void {
    const error = new GatewayError(ErrorCode.InternalError, `The client did not answer: ${reason}.`);
    for (const asked of [...this.#queued.splice(0), ...this.#handedOut.values()]) asked.reject(error);
    this.#handedOut.clear();
    this.#abort.abort(error);
  }
}

/** Calls one caller may keep waiting for its answers at once. */
export const MAX_SUSPENDED_PER_CALLER = 32;

/** The suspended calls of this process, each dropped (and cancelled) when its client does not come back in time. */
export class SuspendedCalls<C = unknown> {
  readonly #calls = new Map<string, { call: SuspendedCall<C>; timer: NodeJS.Timeout; owner: string }>();
  /** Each caller's kept calls, oldest first. */
  readonly #byOwner = new Map<string, Set<string>>();
  readonly #ttlMs: number;
  readonly #perCaller: number;

  constructor(ttlMs: number, perCaller = MAX_SUSPENDED_PER_CALLER) {
    this.#ttlMs = ttlMs;
    this.#perCaller = perCaller;
  }

  get size(): number {
    return this.#calls.size;
  }

  /**
   * Keeps `call` of caller `owner` (an identity id) until its client retries (or the time is up). A
   * caller keeps at most `perCaller` calls waiting: its oldest is given up for a new one (each holds an
   * upstream call open; a client that never retries must not pile them up).
   */
  keep(call: SuspendedCall<C>, owner: string): void {
    this.#drop(call.id);
    const timer = setTimeout(() => {
      this.#drop(call.id);
      call.cancel(`no retry within ${this.#ttlMs} ms`);
    }, this.#ttlMs);
    timer.unref?.();
    this.#calls.set(call.id, { call, timer, owner });
    const mine = this.#byOwner.get(owner) ?? new Set<string>();
    this.#byOwner.set(owner, mine.add(call.id));
    if (mine.size <= this.#perCaller) return;
    const oldest = mine.values().next().value as string;
    const evicted = this.#calls.get(oldest)?.call;
    this.#drop(oldest);
    evicted?.cancel(`its caller has ${this.#perCaller} newer calls waiting for its answers`);
  }

  /** Takes a kept call out (its client is retrying); undefined when it is unknown or expired. */
  take(id: string): SuspendedCall<C> | undefined {
    const entry = this.#calls.get(id);
    if (!entry) return undefined;
    this.#drop(id);
    return entry.call;
  }

  close(): void {
    for (const { call, timer } of this.#calls.values()) {
      clearTimeout(timer);
      call.cancel('the gateway is shutting down');
    }
    this.#calls.clear();
    this.#byOwner.clear();
  }

  #drop(id: string): void {
    const entry = this.#calls.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.#calls.delete(id);
    const mine = this.#byOwner.get(entry.owner);
    mine?.delete(id);
    if (mine?.size === 0) this.#byOwner.delete(entry.owner);
  }
}
