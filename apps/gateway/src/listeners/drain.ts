/**
 * What SIGTERM drains: the listeners stop taking new work once `begin` is called, and `begin` resolves
 * when every tracked request has finished or the grace period is over, whichever comes first.
 */
export class Drain {
  #inFlight = 0;
  #draining = false;
  #idle: (() => void) | undefined;

  /** True once draining started: listeners refuse new sessions and requests (`shutting_down`). */
  get draining(): boolean {
    return this.#draining;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Tracks one request until the returned function (idempotent) is called. */
  track(): () => void {
    this.#inFlight += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#idle?.();
    };
  }

  /** Starts draining; resolves with the requests still in flight when it stopped waiting (0 = all done). */
  begin(graceMs: number): Promise<number> {
    this.#draining = true;
    if (this.#inFlight === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#idle = undefined;
        resolve(this.#inFlight);
      }, graceMs);
      this.#idle = () => {
        clearTimeout(timer);
        this.#idle = undefined;
        resolve(0);
      };
    });
  }
}

export const SHUTTING_DOWN_MESSAGE =
  'Service unavailable: the gateway is shutting down; reconnect (to another instance) and retry';
