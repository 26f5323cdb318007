import type { Logger } from '../logger.js';
import { reportCollisions } from './collisions.js';

/** Skills learned from `skills/get` (not listed) kept per server, oldest forgotten first. */
const MAX_LEARNED = 1024;
const MANIFEST = '/SKILL.md';

/** A skill's root directory: its `SKILL.md` URI without `/SKILL.md`; undefined for any other URI. */
export function skillRootOf(skillUri: string): string | undefined {
  if (!skillUri.endsWith(MANIFEST)) return undefined;
  const root = skillUri.slice(0, -MANIFEST.length);
  return root.endsWith('/') || !root.includes('://') ? undefined : root;
}

/**
 * Which `"prefix": false` server serves the skill (SEP-2640) a URI lies in: every file and directory of
 * a skill sits under its root, so a URI goes to the server whose skill root is its longest prefix
 * (config order wins collisions). Roots come from each server's full `skills/list`, plus the skills
 * `skills/get` found that the server does not list. Several unprefixed servers can serve `skill://`
 * URIs (each with a `skill://{+path}` template); this index tells them apart.
 */
export class SkillRoots {
  readonly #order: readonly string[];
  readonly #listed = new Map<string, Set<string>>();
  readonly #learned = new Map<string, Set<string>>();
  #owners = new Map<string, string>();
  readonly #log: Logger;

  constructor(order: readonly string[], logger: Logger) {
    this.#order = order;
    this.#log = logger;
  }

  /** Replaces what `server` lists (its `SKILL.md` URIs, from a full listing). */
  set(server: string, skillUris: Iterable<string>): void {
    const roots = new Set<string>();
    for (const uri of skillUris) {
      const root = skillRootOf(uri);
      if (root !== undefined) roots.add(root);
    }
    this.#listed.set(server, roots);
    this.#rebuild();
  }

  /** Remembers a skill `server` served by URI although its listing does not name it. */
  learn(server: string, skillUri: string): void {
    const root = skillRootOf(skillUri);
    if (root === undefined || this.#owners.get(root) === server) return;
    const learned = this.#learned.get(server) ?? new Set<string>();
    learned.add(root);
    if (learned.size > MAX_LEARNED) learned.delete(learned.values().next().value as string);
    this.#learned.set(server, learned);
    this.#rebuild();
  }

  forget(server: string): void {
    const had = this.#listed.delete(server);
    if (this.#learned.delete(server) || had) this.#rebuild();
  }

  /** The server whose skill holds `uri` (the skill's own root, `SKILL.md`, a file or a sub-directory). */
  ownerOf(uri: string): string | undefined {
    if (this.#owners.size === 0) return undefined;
    const authority = uri.indexOf('://') + 3;
    if (authority < 3) return undefined;
    // Longest root first: the URI itself, then each parent directory down to the authority.
    for (let end = uri.length; end > authority; end = uri.lastIndexOf('/', end - 1)) {
      const owner = this.#owners.get(uri.slice(0, end));
      if (owner !== undefined) return owner;
    }
    return undefined;
  }

  #rebuild(): void {
    const owners = new Map<string, string>();
    const collisions: { root: string; winner: string; hidden: string }[] = [];
    for (const source of [this.#listed, this.#learned]) {
      for (const server of this.#order) {
        for (const root of source.get(server) ?? []) {
          const first = owners.get(root);
          if (first === undefined) owners.set(root, server);
          else if (first !== server) collisions.push({ root, winner: first, hidden: server });
        }
      }
    }
    this.#owners = owners;
    reportCollisions(
      this.#log,
      'skill collision between unprefixed servers; the first in config order wins',
      collisions,
    );
  }
}
