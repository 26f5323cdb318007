import { type ChangedNames, gatherNames } from '../routing/changed-names.js';

/** The lists whose changes are announced to clients. */
export type ListedKind = 'resources' | 'tools' | 'prompts';

export const LIST_CHANGED: Readonly<Record<ListedKind, string>> = {
  resources: 'notifications/resources/list_changed',
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
};

/** The list kind an upstream `…/list_changed` notification announces, if it is one. */
export function listChangedKind(method: string): ListedKind | undefined {
  for (const [kind, m] of Object.entries(LIST_CHANGED)) if (m === method) return kind as ListedKind;
  return undefined;
}

/**
 * What changed in one window: per upstream, the exposed names that changed (or `all` of its names, when
 * they cannot be told); `all` when the change is the gateway's own (a reload, new plugins).
 */
export type ListChanges = ReadonlyMap<string, ChangedNames> | 'all';

/**
 * Coalesces list changes per kind: however many upstreams change (or connect, or drop) within the
 * window, each session hears one `list_changed` of each kind that changed. The names that changed travel
 * with it, per upstream, so an endpoint that exposes none of them (a virtual server) hears nothing.
 */
export class ListChangedCoalescer {
  readonly #pending = new Map<
    ListedKind,
    { timer: NodeJS.Timeout; changes: Map<string, Set<string> | 'all'> | 'all' }
  >();
  readonly #windowMs: number;
  readonly #emit: (kind: ListedKind, changes: ListChanges) => void;
  #closed = false;

  constructor(windowMs: number, emit: (kind: ListedKind, changes: ListChanges) => void) {
    this.#windowMs = windowMs;
    this.#emit = emit;
  }

  /**
   * The list `kind` changed: `names` of `upstream`'s items (all of them unless named; no name: a change
   * the gateway could not see, see {@link ChangedNames}), or (without an upstream) everyone's.
   */
  schedule(kind: ListedKind, upstream?: string, names: ChangedNames = 'all'): void {
    if (this.#closed) return;
    let pending = this.#pending.get(kind);
    if (!pending) {
      const timer = setTimeout(() => {
        const done = this.#pending.get(kind);
        this.#pending.delete(kind);
        this.#emit(kind, done?.changes ?? 'all');
      }, this.#windowMs);
      timer.unref?.();
      pending = { timer, changes: new Map() };
      this.#pending.set(kind, pending);
    }
    if (upstream === undefined) pending.changes = 'all';
    else if (pending.changes !== 'all') gatherNames(pending.changes, upstream, names);
  }

  close(): void {
    this.#closed = true;
    for (const { timer } of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
  }
}
