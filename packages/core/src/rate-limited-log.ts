import type { Logger } from './logger.js';

/** How often one kind of line may be written at most (one per key per window). */
export const RATE_LIMIT_WINDOW_MS = 10_000;

/**
 * A warning that may repeat at any rate (an upstream printing junk on every line, answering unknown ids in
 * a loop) is written at most once per key per window; the next line that gets through says how many were
 * left out meanwhile. Keeps logs readable and bounded whatever an upstream does.
 *
 * @example
 * const noise = new RateLimitedLog(log);
 * noise.warn('stdout', 'dropped a stdout line that is not JSON', { line: preview(text) });
 */
export class RateLimitedLog {
  readonly #log: Logger;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #keys = new Map<string, { until: number; suppressed: number }>();

  constructor(log: Logger, windowMs = RATE_LIMIT_WINDOW_MS, now: () => number = Date.now) {
    this.#log = log;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  warn(key: string, message: string, fields?: Record<string, unknown>): void {
    const now = this.#now();
    const entry = this.#keys.get(key);
    if (entry && now < entry.until) {
      entry.suppressed += 1;
      return;
    }
    const suppressed = entry?.suppressed ?? 0;
    this.#keys.set(key, { until: now + this.#windowMs, suppressed: 0 });
    const extra = suppressed > 0 ? { ...fields, suppressed } : fields;
    this.#log.warn(message, extra);
  }
}

/** The start of a text, for a log line (never the whole of a possibly huge payload). */
export function preview(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
