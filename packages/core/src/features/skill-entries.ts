import { exposeUri } from '../naming/uris.js';
import { isRecord } from '../payload.js';
import type { UpstreamConnection } from '../upstream/connection.js';

/**
 * A skill entry (SEP-2640) as clients see it: the `SKILL.md` URI and every file URI of its `resources`
 * exposed like any resource URI of the upstream (`<server>+skill://…` for a prefixed one), so the entry
 * still verifies against the files read through the gateway. Frontmatter, digests, sizes and `_meta`
 * pass through untouched; `"dynamic"` stays `"dynamic"`.
 */
export function exposeSkillEntry(upstream: UpstreamConnection, skill: Record<string, unknown>) {
  if (!upstream.config.prefix || typeof skill.uri !== 'string') return skill;
  const exposed: Record<string, unknown> = { ...skill, uri: exposeUri(upstream.name, skill.uri, true) };
  if (Array.isArray(skill.resources)) exposed.resources = skill.resources.map((r) => exposeItem(upstream, r));
  return exposed;
}

/** A `resources/directory/read` result with each child's URI exposed (its cursor is the upstream's own). */
export function exposeDirectory(upstream: UpstreamConnection, result: Record<string, unknown>) {
  if (!upstream.config.prefix || !Array.isArray(result.resources)) return result;
  return { ...result, resources: result.resources.map((r) => exposeItem(upstream, r)) };
}

function exposeItem(upstream: UpstreamConnection, item: unknown): unknown {
  if (!isRecord(item) || typeof item.uri !== 'string') return item;
  return { ...item, uri: exposeUri(upstream.name, item.uri, true) };
}
