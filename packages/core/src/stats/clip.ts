/**
 * The most characters the status page and telemetry keep of one string a client (or an upstream) chose:
 * a URI, a tool or prompt name, a method, an identity, an error message. A request may carry megabytes
 * of it (a URI under `limits.maxBodyBytes`); 50 such entries on the status page, or every span, would.
 */
export const RECORDED_CHARS = 1024;

/** What ends a string cut at {@link RECORDED_CHARS}. */
export const CLIPPED_MARK = '…';

/**
 * `text` as recorded: as it is up to `max` characters, else its first `max` (a surrogate pair is not
 * split) followed by {@link CLIPPED_MARK}.
 */
export function clipped(text: string, max = RECORDED_CHARS): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}${CLIPPED_MARK}`;
}
