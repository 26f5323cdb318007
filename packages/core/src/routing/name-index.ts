import { type ListPage, type WalkEnd, walk } from '../listing/walk.js';
import type { Logger } from '../logger.js';
import type { NameFilter } from '../naming/curation.js';
import { exposeName, splitExposedName } from '../naming/names.js';
import { asRecords } from '../payload.js';
import { reportCollisions } from './collisions.js';

/** The two name-addressed features: tools and prompts. */
export type NamedKind = 'tools' | 'prompts';

/** Where an exposed tool or prompt name leads: the upstream and the name it knows the item by. */
export interface NamedTarget {
  readonly upstream: string;
  readonly name: string;
}

/** How one upstream's names are exposed. */
export interface NamedUpstream {
  readonly name: string;
  readonly prefix: boolean;
  /** Curation: names it refuses are never exposed (as if the upstream never had them). */
  readonly filter: NameFilter;
}

const LIST_METHOD = { tools: 'tools/list', prompts: 'prompts/list' } as const;
/** Collisions remembered as already logged (past it, the memory starts over). */
const MAX_REPORTED = 10_000;

/**
 * The index from exposed tool (or prompt) name to (upstream, original name), for every upstream. It is
 * filled from each upstream's full listing (on connect and on its `list_changed`) and from the merged
 * pages clients walk; two upstream names that map to the same exposed name are a reported collision,
 * and the first upstream in config order keeps the name (DESIGN §4b).
 */
export class NameIndex {
  readonly kind: NamedKind;
  #upstreams: readonly NamedUpstream[];
  #byName: ReadonlyMap<string, NamedUpstream>;
  /** Per upstream, in its listing order: exposed name → original name. */
  readonly #names = new Map<string, Map<string, string>>();
  #owners = new Map<string, NamedTarget>();
  readonly #generation = new Map<string, number>();
  readonly #log: Logger;
  readonly #reported = new Set<string>();

  constructor(kind: NamedKind, upstreams: readonly NamedUpstream[], logger: Logger) {
    this.kind = kind;
    this.#upstreams = upstreams;
    this.#byName = new Map(upstreams.map((u) => [u.name, u]));
    this.#log = logger;
  }

  /**
   * Replaces the upstream set (a config reload): what the index knew of upstreams that left, or whose
   * exposure changed, is dropped; the others keep their names, re-ranked in the new config order.
   */
  setUpstreams(upstreams: readonly NamedUpstream[], keep: (name: string) => boolean): void {
    this.#upstreams = upstreams;
    this.#byName = new Map(upstreams.map((u) => [u.name, u]));
    for (const name of [...this.#names.keys()]) {
      if (this.#byName.has(name) && keep(name)) continue;
      this.#names.delete(name);
      this.#generation.set(name, (this.#generation.get(name) ?? 0) + 1);
    }
    this.#rebuild();
  }

  /** The exposed name of `upstream`'s item `name`, or undefined when curation hides it. */
  expose(upstream: string, name: string): string | undefined {
    const u = this.#byName.get(upstream);
    if (!u?.filter(name)) return undefined;
    return exposeName(u.name, name, u.prefix);
  }

  /**
   * Whether `upstream`'s item `name` is listed under `exposed`: false when another upstream (or
   * another of its own names) owns that exposed name. An item the index has not seen yet is learned.
   */
  claims(upstream: string, name: string, exposed: string): boolean {
    const owner = this.#owners.get(exposed);
    if (owner === undefined) {
      this.#learn(upstream, name, exposed);
      return true;
    }
    return owner.upstream === upstream && owner.name === name;
  }

  /** Where an exposed name leads, as far as the index knows. */
  resolve(exposed: string): NamedTarget | undefined {
    const owner = this.#owners.get(exposed);
    if (owner) return owner;
    // A plain `<server>__<name>` needs no mapping: before the upstream was ever listed (it has been down
    // since the start), route it anyway, so the caller learns the upstream is down, not that the name is.
    const split = splitExposedName(exposed);
    const u = split && this.#byName.get(split.server);
    if (!split || !u?.prefix || this.#names.has(u.name) || !u.filter(split.name)) return undefined;
    return exposeName(u.name, split.name, true) === exposed
      ? { upstream: u.name, name: split.name }
      : undefined;
  }

  /** The upstreams an unknown exposed name might belong to, for a refresh before giving up. */
  candidates(exposed: string): string[] {
    const split = splitExposedName(exposed);
    const prefixed = split && this.#byName.get(split.server);
    if (prefixed?.prefix) return [prefixed.name];
    return this.#upstreams.filter((u) => !u.prefix).map((u) => u.name);
  }

  get size(): number {
    return this.#owners.size;
  }

  /** Every exposed name the index knows, with where it leads, in config order. */
  entries(): IterableIterator<[string, NamedTarget]> {
    return this.#owners.entries();
  }

  /**
   * Re-reads one upstream's full listing (every page, at most `maxPages`) and replaces what the index
   * knew of it.
   */
  async refresh(upstream: string, list: ListPage, maxPages: number): Promise<WalkEnd> {
    const generation = (this.#generation.get(upstream) ?? 0) + 1;
    this.#generation.set(upstream, generation);
    const names = new Map<string, string>();
    const end = await walk(
      list,
      LIST_METHOD[this.kind],
      (page) => {
        for (const item of asRecords(page[this.kind])) {
          if (typeof item?.name !== 'string') continue;
          const exposed = this.expose(upstream, item.name);
          if (exposed === undefined) continue;
          const first = names.get(exposed);
          if (first === undefined) names.set(exposed, item.name);
          else if (first !== item.name) this.#collision(exposed, upstream, first, upstream, item.name);
          else this.#repeated(exposed, upstream, item.name);
        }
      },
      maxPages,
    );
    if (this.#generation.get(upstream) !== generation) return end;
    this.#names.set(upstream, names);
    this.#rebuild();
    return end;
  }

  #learn(upstream: string, name: string, exposed: string): void {
    let names = this.#names.get(upstream);
    if (!names) {
      names = new Map();
      this.#names.set(upstream, names);
    }
    if (!names.has(exposed)) names.set(exposed, name);
    this.#owners.set(exposed, { upstream, name });
  }

  #rebuild(): void {
    const owners = new Map<string, NamedTarget>();
    const collisions: Record<string, string>[] = [];
    for (const u of this.#upstreams) {
      for (const [exposed, name] of this.#names.get(u.name) ?? []) {
        const first = owners.get(exposed);
        if (first === undefined) owners.set(exposed, { upstream: u.name, name });
        else collisions.push(describe(this.kind, exposed, first, { upstream: u.name, name }));
      }
    }
    this.#owners = owners;
    reportCollisions(
      this.#log,
      `${this.kind === 'tools' ? 'tool' : 'prompt'} name collision; the first in config order keeps the name`,
      collisions.filter((c) => this.#firstReport(c)),
    );
  }

  #collision(exposed: string, upstream: string, first: string, hiddenUpstream: string, hidden: string) {
    const collision = describe(
      this.kind,
      exposed,
      { upstream, name: first },
      { upstream: hiddenUpstream, name: hidden },
    );
    if (!this.#firstReport(collision)) return;
    reportCollisions(
      this.#log,
      `${this.kind === 'tools' ? 'tool' : 'prompt'} name collision; the first listed keeps the name`,
      [collision],
    );
  }

  /**
   * `upstream` lists `name` more than once. A merged page lists it once (`ListKind.key`), but the merged
   * cursor cannot carry every name seen, so a repeat on a later page is listed again: said here, once.
   */
  #repeated(exposed: string, upstream: string, name: string) {
    const target = { upstream, name };
    if (!this.#firstReport(describe(this.kind, exposed, target, target))) return;
    const item = this.kind === 'tools' ? 'tool' : 'prompt';
    this.#log.warn(`an upstream lists one ${item} name twice; a page lists it once, later pages again`, {
      upstream,
      exposed,
      [item]: name,
    });
  }

  /** Whether a collision is news: each is logged once, not again on every re-list. */
  #firstReport(collision: Record<string, string>): boolean {
    const key = `${collision.exposed}\u0000${collision.winner}\u0000${collision.hidden}`;
    if (this.#reported.has(key)) return false;
    if (this.#reported.size >= MAX_REPORTED) this.#reported.clear();
    this.#reported.add(key);
    return true;
  }
}

function describe(kind: NamedKind, exposed: string, winner: NamedTarget, hidden: NamedTarget) {
  const item = kind === 'tools' ? 'tool' : 'prompt';
  return {
    exposed,
    winner: `${winner.upstream}:${winner.name}`,
    hidden: `${hidden.upstream}:${hidden.name}`,
    [item]: hidden.name,
  };
}
