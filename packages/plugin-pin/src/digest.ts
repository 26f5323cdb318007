import { createHash } from 'node:crypto';
import { canonicalJson } from '@switchyard/core';

/** What is pinned: tools and prompts, named like their list methods' result fields. */
export type PinKind = 'tools' | 'prompts';

/** The fields of a definition that are pinned, per kind (DESIGN §8): anything else (icons, `_meta`) may change freely. */
export const PINNED_FIELDS: Readonly<Record<PinKind, readonly string[]>> = {
  tools: ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'],
  prompts: ['name', 'title', 'description', 'arguments'],
};

/** A digest as the lock file holds it: `sha256:` and 64 lowercase hex digits. */
export type Digest = `sha256:${string}`;

export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** RFC 8785 (JCS) canonical JSON: the core's, shared with the approve plugin's digests. */
export { canonicalJson };

/** The pinned fields of a definition (those it has), in a new object. */
export function pinnedPart(
  kind: PinKind,
  definition: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const part: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS[kind]) {
    if (definition[field] !== undefined) part[field] = definition[field];
  }
  return part;
}

/** `sha256:` and the hex SHA-256 of a string (UTF-8). */
export function sha256(text: string): Digest {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** The digest of a tool's or prompt's definition: the SHA-256 of the canonical JSON of its pinned fields. */
export function definitionDigest(kind: PinKind, definition: Readonly<Record<string, unknown>>): Digest {
  return sha256(canonicalJson(pinnedPart(kind, definition)));
}

/** The digest of a server's `instructions` (a string): the SHA-256 of its canonical JSON. */
export function instructionsDigest(instructions: string): Digest {
  return sha256(canonicalJson(instructions));
}

/** The pinned fields whose canonical JSON differs between two definitions of the same kind. */
export function changedFields(
  kind: PinKind,
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): string[] {
  const a = pinnedPart(kind, before);
  const b = pinnedPart(kind, after);
  return PINNED_FIELDS[kind].filter(
    (field) =>
      (a[field] === undefined ? undefined : canonicalJson(a[field])) !==
      (b[field] === undefined ? undefined : canonicalJson(b[field])),
  );
}
