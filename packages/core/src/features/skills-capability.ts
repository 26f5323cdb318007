import type { ServerCapabilities } from '@modelcontextprotocol/client';
import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/client/ext/skills';
import { isRecord } from '../payload.js';
import type { UpstreamConnection } from '../upstream/connection.js';

/** What an upstream declared under `extensions["io.modelcontextprotocol/skills"]`, if it declared it. */
function skillsSettings(capabilities: ServerCapabilities | undefined): Record<string, unknown> | undefined {
  const declared = capabilities?.extensions?.[SKILLS_EXTENSION_ID];
  return isRecord(declared) ? declared : undefined;
}

/** Whether capabilities declare the Skills extension (SEP-2640): `skills/list` and `skills/get`. */
export function declaresSkills(capabilities: ServerCapabilities | undefined): boolean {
  return skillsSettings(capabilities) !== undefined;
}

/** Whether capabilities declare the extension with `directoryRead: true` (`resources/directory/read`). */
export function declaresDirectoryRead(capabilities: ServerCapabilities | undefined): boolean {
  return skillsSettings(capabilities)?.directoryRead === true;
}

/**
 * The gateway's `capabilities.extensions` for skills: the extension declared when some upstream declared
 * it when it last connected, with `directoryRead` when some such upstream reads directories; undefined
 * when none did.
 */
export function skillsExtensions(
  upstreams: readonly UpstreamConnection[],
): Record<string, { directoryRead?: true }> | undefined {
  const known = upstreams.map((u) => u.knownCapabilities);
  if (!known.some(declaresSkills)) return undefined;
  return { [SKILLS_EXTENSION_ID]: known.some(declaresDirectoryRead) ? { directoryRead: true } : {} };
}
