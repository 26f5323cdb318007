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
 * Coalesces list changes per kind: however many upstreams change (or connect, or drop) within the
 * window, each session hears one `list_changed` of each kind that changed.
 */
export class ListChangedCoalescer {
  readonly #timers = new Map<ListedKind, NodeJS.Timeout>();
  readonly #windowMs: number;
  readonly #emit: (method: string) => void;
  #closed = false;

  constructor(windowMs: number, emit: (method: string) => void) {
    this.#windowMs = windowMs;
    this.#emit = emit;
  }

  schedule(kind: ListedKind): void {
    if (this.#closed || this.#timers.has(kind)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(kind);
      this.#emit(LIST_CHANGED[kind]);
    }, this.#windowMs);
    timer.unref?.();
    this.#timers.set(kind, timer);
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
