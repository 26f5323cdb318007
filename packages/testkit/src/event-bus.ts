import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';

/** An in-process change-event bus that reports how many listen streams are subscribed to it. */
export class CountingEventBus implements ServerEventBus {
  readonly #listeners = new Set<(event: ServerEvent) => void>();
  readonly #changed: () => void;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  get size(): number {
    return this.#listeners.size;
  }

  publish(event: ServerEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A failing stream must not stop delivery to the others.
      }
    }
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    // Wrap, so the same function registered twice still counts as two streams.
    const entry = (event: ServerEvent): void => listener(event);
    this.#listeners.add(entry);
    this.#changed();
    return () => {
      if (!this.#listeners.delete(entry)) return;
      this.#changed();
    };
  }
}
