/** Longest runs of unchanged lines inside a change shown in full; longer ones are elided. */
const KEEP = 3;
/** Beyond this many cells the middle is shown as removed then added, without aligning. */
const MAX_CELLS = 4_000_000;

/**
 * A unified-style diff of two texts for people, not for `patch`: `---`/`+++` headers, one `@@` hunk
 * from the first to the last changed line with a little context, long unchanged stretches elided.
 */
export function lineDiff(before: string, after: string, label: string): string {
  if (before === after) return '';
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const middle = align(a.slice(start, endA), b.slice(start, endB));
  const from = Math.max(0, start - KEEP);
  const trailing = a.slice(endA, endA + KEEP);
  const out = [
    `--- ${label}`,
    `+++ ${label} (new)`,
    `@@ -${from + 1},${endA - from + trailing.length} +${from + 1},${endB - from + trailing.length} @@`,
    ...a.slice(from, start).map((l) => ` ${l}`),
    ...elide(middle),
    ...trailing.map((l) => ` ${l}`),
  ];
  return `${out.join('\n')}\n`;
}

function lines(text: string): string[] {
  const all = text.split(/\r?\n/);
  if (all.at(-1) === '') all.pop();
  return all;
}

/** The middle as ` `/`-`/`+` lines, aligned on a longest common subsequence. */
function align(a: string[], b: string[]): string[] {
  if (a.length * b.length > MAX_CELLS) return [...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)];
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1)
    for (let j = b.length - 1; j >= 0; j -= 1)
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i += 1;
      j += 1;
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      out.push(`-${a[i]}`);
      i += 1;
    } else {
      out.push(`+${b[j]}`);
      j += 1;
    }
  }
  return out;
}

function elide(lines: string[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 2 * KEEP + 1)
      out.push(...run.slice(0, KEEP), ` … ${run.length - 2 * KEEP} unchanged lines`, ...run.slice(-KEEP));
    else out.push(...run);
    run = [];
  };
  for (const line of lines) {
    if (line.startsWith(' ')) run.push(line);
    else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out;
}
