/**
 * A request timeout that can be paused and restarted: paused while the downstream client is answering
 * something the upstream asked (a human filling in an elicitation is not the upstream being slow),
 * restarted by progress. Expiry aborts `signal` with a {@link DeadlineExpired} reason.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: NodeJS.Timeout | undefined;
  #holds = 0;
  #done = false;

  constructor(ms: number) {
    this.#ms = ms;
    this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get expired(): boolean {
    return this.#controller.signal.aborted;
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
  }

  #arm(): void {
    this.#clear();
    if (this.#done || this.expired) return;
    this.#timer = setTimeout(() => this.#controller.abort(new DeadlineExpired(this.#ms)), this.#ms);
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
