import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Digest, definitionDigest, type PinKind, pinnedPart } from './digest.js';
import type { LockFile } from './lock-file.js';

/**
 * The pinned definitions beside the lock file, so that the status page can show what changed (a diff)
 * after a restart: the lock file holds digests only, and its format is the contract's. A sidecar
 * (`<lock file without .json>.definitions.json`), `{ "version": 1, "definitions": { "<digest>": {
 * "kind": "tools", "definition": { …the pinned fields… } } } }`, written with the lock file and pruned
 * to the digests it references. It only ever adds a diff: a missing, stale or edited sidecar loses the
 * diff (an entry whose definition does not hash to its digest is ignored), never the enforcement.
 */
export interface PinnedDefinition {
  readonly kind: PinKind;
  readonly definition: Readonly<Record<string, unknown>>;
}

export type KnownDefinitions = ReadonlyMap<Digest, PinnedDefinition>;

/** The sidecar's path: `pins.json` → `pins.definitions.json` (any other name gets `.definitions.json` added). */
export function definitionsFile(lockFile: string): string {
  return `${lockFile.endsWith('.json') ? lockFile.slice(0, -'.json'.length) : lockFile}.definitions.json`;
}

/**
 * Reads a sidecar: its entries whose definition hashes to its digest (the others, and a missing or
 * unreadable file, are left out: they only cost a diff).
 */
export async function readDefinitions(file: string): Promise<Map<Digest, PinnedDefinition>> {
  const out = new Map<Digest, PinnedDefinition>();
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return out;
  }
  const entries = (raw as { definitions?: unknown } | null)?.definitions;
  if (typeof entries !== 'object' || entries === null) return out;
  for (const [digest, entry] of Object.entries(entries as Record<string, unknown>)) {
    const { kind, definition } = (entry ?? {}) as { kind?: unknown; definition?: unknown };
    if (kind !== 'tools' && kind !== 'prompts') continue;
    if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) continue;
    const def = definition as Record<string, unknown>;
    try {
      if (definitionDigest(kind, def) === digest) out.set(digest, { kind, definition: def });
    } catch {
      // not JSON (cannot be canonicalized): no diff for it
    }
  }
  return out;
}

/** Every digest the lock file references. */
export function lockDigests(lock: LockFile): Set<Digest> {
  const out = new Set<Digest>();
  for (const entry of Object.values(lock.servers)) {
    for (const digest of [...Object.values(entry.tools), ...Object.values(entry.prompts)]) out.add(digest);
  }
  return out;
}

/** The sidecar's text: the known definitions of the lock's digests, sorted by digest. */
export function serializeDefinitions(lock: LockFile, known: KnownDefinitions): string {
  const definitions: Record<string, { kind: PinKind; definition: Record<string, unknown> }> = {};
  for (const digest of [...lockDigests(lock)].sort()) {
    const entry = known.get(digest);
    if (entry)
      definitions[digest] = { kind: entry.kind, definition: pinnedPart(entry.kind, entry.definition) };
  }
  return `${JSON.stringify({ version: 1, definitions }, null, 2)}\n`;
}

/** Writes the sidecar atomically (a temporary file renamed over it). */
export async function writeDefinitions(file: string, lock: LockFile, known: KnownDefinitions): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, serializeDefinitions(lock, known), { encoding: 'utf8', mode: 0o644 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * For a writer of the lock file without a running gateway (`switchyard pin`): the sidecar of `lockFile`
 * with `added` definitions, pruned to `lock`'s digests. Write it before the lock file, so a gateway
 * applying the new lock finds the definitions beside it.
 */
export async function updateDefinitions(
  lockFile: string,
  lock: LockFile,
  added: readonly PinnedDefinition[],
): Promise<void> {
  const file = definitionsFile(lockFile);
  const known = await readDefinitions(file);
  for (const entry of added) known.set(definitionDigest(entry.kind, entry.definition), entry);
  await writeDefinitions(file, lock, known);
}
