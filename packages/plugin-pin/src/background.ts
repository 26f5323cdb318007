import type { Logger } from '@switchyard/core';

/**
 * The plugin's background work (a lock file reload after a watch event, a store read after another
 * replica's message), kept so that closing can wait for it: it writes files. A failure is logged.
 */
export class BackgroundWork {
  readonly #log: Logger;
  readonly #tasks = new Set<Promise<void>>();

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Runs `work` in the background; a failure is logged. */
  run(work: () => Promise<void>): void {
    const task = work().catch((error: unknown) =>
      this.#log.error('pins not updated', { error: String(error) }),
    );
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task));
  }

  /** Resolves when the work under way now is done. */
  async settled(): Promise<void> {
    await Promise.all(this.#tasks);
  }
}
