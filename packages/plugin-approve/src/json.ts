/** The largest nesting and value count of arguments the plugin digests and shows. */
export const MAX_ARGUMENT_DEPTH = 64;
export const MAX_ARGUMENT_VALUES = 100_000;
/** How much of the arguments an approver is shown (JSON text, cut with an ellipsis). */
export const MAX_SHOWN_CHARS = 4096;

/**
 * Whether a JSON value stays within `MAX_ARGUMENT_DEPTH` levels and `MAX_ARGUMENT_VALUES` values
 * (walked without recursion, so a crafted value cannot exhaust the stack).
 */
export function withinBounds(value: unknown): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let count = 0;
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (++count > MAX_ARGUMENT_VALUES || depth > MAX_ARGUMENT_DEPTH) return false;
    if (typeof item !== 'object' || item === null) continue;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return true;
}

/** The arguments as an approver reads them: JSON, cut at `MAX_SHOWN_CHARS`. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value ?? {}, null, 2);
  return text.length <= MAX_SHOWN_CHARS ? text : `${text.slice(0, MAX_SHOWN_CHARS)}… (cut)`;
}
