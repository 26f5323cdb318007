/** Exponential backoff with ±20% jitter: 250 ms, 500 ms, 1 s … capped at `maxMs`. */
export function backoffDelay(attempt: number, baseMs = 250, maxMs = 30_000, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  const jitter = exp * 0.2 * (random() * 2 - 1);
  return Math.max(0, Math.round(Math.min(maxMs, exp + jitter)));
}
