import type { RequestContext } from './context.js';

/**
 * What the gateway's own code watches of a request's cancellation: whether it was aborted, why, and an
 * `abort` listener. A real `AbortSignal` is one; so is a {@link Cancellation}, which makes no signal until
 * something asks for one.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A request's cancellation, cheap until an `AbortSignal` is asked for. On Node 20 the first read of an
 * `AbortController`'s `signal` costs about 6 µs and makes objects (and hidden classes) that outlive
 * young-generation GCs, once per request and again per upstream call; most requests are never cancelled and
 * nothing on their way needs a signal: the SDK's client reads only `aborted`, `reason` and the `abort`
 * listeners of a request's signal. {@link signal} makes the real one on first use (a plugin's `ctx.signal`,
 * an API that takes a signal), aborted whenever this is.
 */
export class Cancellation implements CancelSignal {
  #aborted = false;
  #reason: unknown = undefined;
  #listeners: (() => void)[] | undefined = undefined;
  #controller: AbortController | undefined = undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** A real `AbortSignal` that follows this cancellation (made once, on first use). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Like `AbortController.abort`: once; the listeners run in the order they were added. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget does: one listener's failure neither stops the others nor reaches the caller.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.#controller?.abort(reason);
  }

  /** As on an `AbortSignal`: a listener added twice runs once, one added after the abort never runs. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.#aborted) return;
    this.#listeners ??= [];
    if (!this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    const at = listeners ? listeners.indexOf(listener) : -1;
    if (at >= 0) listeners?.splice(at, 1);
  }
}

/** A real `AbortSignal` for `cancel`: itself, or the one a {@link Cancellation} makes on first use. */
export function signalOf(cancel: CancelSignal): AbortSignal {
  return cancel instanceof Cancellation ? cancel.signal : (cancel as AbortSignal);
}

/**
 * Where a `RequestContext` keeps its cancellation (a symbol, so the public context keeps its shape; a copy
 * made with `{ ...ctx }` keeps it too).
 */
export const CANCELLATION: unique symbol = Symbol('switchyard.cancellation');

/** What the gateway watches of `ctx`'s cancellation, without making its `AbortSignal` (`ctx.signal`). */
export function cancellationOf(ctx: RequestContext): CancelSignal {
  return (ctx as { [CANCELLATION]?: CancelSignal })[CANCELLATION] ?? ctx.signal;
}
