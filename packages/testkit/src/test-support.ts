/**
 * Small helpers for tests that start servers and processes: Switchyard's own suites and in-house
 * plugin tests use them alike.
 */

/** Runs registered cleanups in reverse order, each even if an earlier one fails; use one per test file. */
export class Cleanup {
  #tasks: (() => unknown)[] = [];

  add(task: () => unknown): void {
    this.#tasks.push(task);
  }

  async run(): Promise<void> {
    for (const task of this.#tasks.splice(0).reverse()) {
      try {
        await task();
      } catch {
        // keep cleaning up
      }
    }
  }
}

/**
 * Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs` naming
 * what it waited for (and the probe's last error, if it threw).
 */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`,
  );
}
