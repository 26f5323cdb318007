import { structuredPatch } from 'diff';

/** Unchanged lines shown around each change. */
const CONTEXT = 3;

/**
 * A unified diff of two texts for people (jsdiff's hunks): `---`/`+++` headers, then each changed
 * stretch as an `@@` hunk with a little context. Empty when nothing changed.
 */
export function lineDiff(before: string, after: string, label: string): string {
  if (before === after) return '';
  const patch = structuredPatch(label, `${label} (new)`, before, after, undefined, undefined, {
    context: CONTEXT,
  });
  const out = [`--- ${label}`, `+++ ${label} (new)`];
  for (const hunk of patch.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return `${out.join('\n')}\n`;
}
