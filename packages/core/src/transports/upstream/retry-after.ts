/** The longest wait an upstream's `Retry-After` is passed on with: a day (a larger one is taken as a day). */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * An HTTP `Retry-After` value (RFC 9110 §10.2.3: delta-seconds or an HTTP-date) as milliseconds from
 * `now`, at most a day; undefined when the header is absent or says nothing usable. A date in the past
 * is 0: retry now.
 */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP-date names its weekday: a bare number or word is no date (Date.parse takes far too much).
  if (!/^[A-Za-z]{3},/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}
