import { Cancellation, type CancelSignal } from '../cancellation.js';

/**
 * A request timeout that can be paused and restarted: paused while the downstream client is answering
 * something the upstream asked (a human filling in an elicitation is not the upstream being slow),
 * restarted by progress. Expiry aborts `signal` with a {@link DeadlineExpired} reason; so does the caller's
 * own signal, once followed, with its reason (one signal for the request, without `AbortSignal.any`, whose
 * weak-ref bookkeeping cost more than the rest of a request's signals together on Node 20). A caller that
 * already has a controller for the request's upstream call gives it (`abort`), and expiry aborts that one:
 * on Node 20 every AbortSignal made costs about 10 µs and survives young-generation GCs, so it is a
 * {@link Cancellation}, which makes none unless asked.
 */
export class Deadline {
  readonly #controller: Cancellation;
  readonly #ms: number;
  #timer: NodeJS.Timeout | undefined;
  #holds = 0;
  #done = false;
  #expired = false;
  #unfollow: (() => void) | undefined;

  constructor(ms: number, abort: Cancellation = new Cancellation()) {
    this.#controller = abort;
    this.#ms = ms;
    this.#arm();
  }

  get signal(): CancelSignal {
    return this.#controller;
  }

  /** The time ran out (not: the followed signal aborted). */
  get expired(): boolean {
    return this.#expired;
  }

  /**
   * The signal of the request: aborted when the time runs out or when `caller` aborts (with its reason).
   * Without `caller`, just {@link signal}.
   */
  follow(caller: CancelSignal | undefined): CancelSignal {
    const own = this.#controller;
    if (!caller || caller === own || this.#unfollow) return own;
    if (caller.aborted) own.abort(caller.reason);
    else {
      const abort = () => own.abort(caller.reason);
      caller.addEventListener('abort', abort, { once: true });
      this.#unfollow = () => caller.removeEventListener('abort', abort);
    }
    return own;
  }

  /** Starts the full timeout again (progress arrived). No effect while paused. */
  touch(): void {
    if (this.#holds === 0) this.#arm();
  }

  /** Stops the clock until the returned release is called (holds nest). */
  hold(): () => void {
    this.#holds += 1;
    this.#clear();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      if (this.#holds === 0) this.#arm();
    };
  }

  /** The request ended: the deadline never fires. */
  finish(): void {
    this.#done = true;
    this.#clear();
    this.#unfollow?.();
    this.#unfollow = undefined;
  }

  #arm(): void {
    this.#clear();
    if (this.#done || this.#controller.aborted) return;
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.#controller.abort(new DeadlineExpired(this.#ms));
    }, this.#ms);
    this.#timer.unref?.();
  }

  #clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

export class DeadlineExpired extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}
