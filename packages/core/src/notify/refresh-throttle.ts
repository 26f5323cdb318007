/** At most one re-list per upstream and list kind in this window, however fast changes are announced. */
export const REFRESH_INTERVAL_MS = 500;

interface KeyState {
  running: boolean;
  /** A change was announced after the running refresh started: one more refresh follows it. */
  dirty: boolean;
  timer: NodeJS.Timeout | undefined;
  lastStart: number;
  run: () => Promise<void>;
}

/**
 * Coalesces `list_changed` storms (DESIGN §11): each key (an upstream and a list kind) is refreshed at most
 * once per interval. A change announced while a refresh runs, or within the interval after one started,
 * leads to exactly one more refresh, started when the interval allows: nothing announced is missed, and
 * 2,000 notifications in a burst cost two re-lists, not hundreds.
 */
export class RefreshThrottle {
  readonly #keys = new Map<string, KeyState>();
  readonly #intervalMs: number;
  readonly #now: () => number;
  #closed = false;

  constructor(intervalMs = REFRESH_INTERVAL_MS, now: () => number = Date.now) {
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Asks for a refresh of `key`; `run` (the latest one asked with wins) performs it. */
  trigger(key: string, run: () => Promise<void>): void {
    if (this.#closed) return;
    let state = this.#keys.get(key);
    if (!state) {
      state = { running: false, dirty: false, timer: undefined, lastStart: -Infinity, run };
      this.#keys.set(key, state);
    }
    state.run = run;
    if (state.running) {
      state.dirty = true;
      return;
    }
    if (state.timer) return;
    const wait = state.lastStart + this.#intervalMs - this.#now();
    if (wait <= 0) {
      this.#start(key, state);
      return;
    }
    const s = state;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      this.#start(key, s);
    }, wait);
    s.timer.unref?.();
  }

  #start(key: string, state: KeyState): void {
    if (this.#closed) return;
    state.running = true;
    state.dirty = false;
    state.lastStart = this.#now();
    // A `run` that throws instead of rejecting must not leave the key running for ever.
    void (async () => state.run())()
      .catch(() => {})
      .finally(() => {
        state.running = false;
        if (state.dirty) this.trigger(key, state.run);
        else if (!state.timer) this.#forgetLater(key, state);
      });
  }

  /** An idle key is forgotten once its interval is over (nothing to wait for any more). */
  #forgetLater(key: string, state: KeyState): void {
    const started = state.lastStart;
    const wait = Math.max(0, started + this.#intervalMs - this.#now());
    const timer = setTimeout(() => {
      // A run started since then has its own interval (and forgets the key after it).
      if (state.lastStart !== started || state.running || state.timer) return;
      if (this.#keys.get(key) === state) this.#keys.delete(key);
    }, wait);
    timer.unref?.();
  }

  close(): void {
    this.#closed = true;
    for (const state of this.#keys.values()) if (state.timer) clearTimeout(state.timer);
    this.#keys.clear();
  }
}
