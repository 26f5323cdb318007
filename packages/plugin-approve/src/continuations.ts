/** How long a continuation stays usable (the gateway's own requestState lives as long). */
const TTL_MS = 10 * 60_000;
/** At most this many are remembered; the oldest go first. */
const MAX = 10_000;

/**
 * The `requestState`s of approved calls that came back input-required (the upstream asks the caller
 * something): a 2026-07-28 client's retry with one continues the approved call, once, and only with the
 * same identity, tool and arguments (the approval's digest).
 */
export class ApprovedContinuations {
  readonly #states = new Map<string, { digest: string; expires: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  remember(requestState: string, digest: string): void {
    if (this.#states.size >= MAX) this.#states.delete(this.#states.keys().next().value as string);
    this.#states.set(requestState, { digest, expires: this.#now() + TTL_MS });
  }

  /** Whether `requestState` continues an approved call with this digest; it is spent either way. */
  take(requestState: string, digest: string): boolean {
    const found = this.#states.get(requestState);
    this.#states.delete(requestState);
    return found !== undefined && found.digest === digest && found.expires > this.#now();
  }
}
