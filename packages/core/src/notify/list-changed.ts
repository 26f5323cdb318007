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

/** Which upstreams' items changed in one window; `all` when the change is the gateway's own (a reload). */
export type ChangedUpstreams = ReadonlySet<string> | 'all';

/**
 * Coalesces list changes per kind: however many upstreams change (or connect, or drop) within the
 * window, each session hears one `list_changed` of each kind that changed. The upstreams that changed
 * travel with it, so an endpoint that exposes none of them (a virtual server) hears nothing.
 */
export class ListChangedCoalescer {
  readonly #pending = new Map<ListedKind, { timer: NodeJS.Timeout; upstreams: Set<string> | 'all' }>();
  readonly #windowMs: number;
  readonly #emit: (method: string, upstreams: ChangedUpstreams) => void;
  #closed = false;

  constructor(windowMs: number, emit: (method: string, upstreams: ChangedUpstreams) => void) {
    this.#windowMs = windowMs;
    this.#emit = emit;
  }

  /** The list `kind` changed: for `upstream`'s items, or (without one) for everyone. */
  schedule(kind: ListedKind, upstream?: string): void {
    if (this.#closed) return;
    const pending = this.#pending.get(kind);
    if (pending) {
      if (upstream === undefined) pending.upstreams = 'all';
      else if (pending.upstreams !== 'all') pending.upstreams.add(upstream);
      return;
    }
    const timer = setTimeout(() => {
      const done = this.#pending.get(kind);
      this.#pending.delete(kind);
      this.#emit(LIST_CHANGED[kind], done?.upstreams ?? 'all');
    }, this.#windowMs);
    timer.unref?.();
    this.#pending.set(kind, { timer, upstreams: upstream === undefined ? 'all' : new Set([upstream]) });
  }

  close(): void {
    this.#closed = true;
    for (const { timer } of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
  }
}
