import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedChild, spawnProcess, untilReady } from './child.js';
import type { ManagedProcess, SpawnProcessOptions, StartedProcess, StartProcessOptions } from './types.js';

/**
 * The children of one run (a benchmark, a soak) and its scratch directories, stopped and removed together.
 * `crashed` rejects as soon as any member crashes (see ManagedProcess.crashed).
 *
 * @example
 * const children = new ProcessGroup();
 * try {
 *   const { proc } = await children.start({ name: 'upstream', args: [cli], ready: { line: /^\{/, stream: 'stdout' } });
 *   await Promise.race([work(proc), children.crashed]);
 * } finally {
 *   await children.stopAll();
 * }
 */
export class ProcessGroup {
  readonly crashed: Promise<never>;
  readonly #members = new Set<ManagedProcess>();
  readonly #dirs = new Set<string>();
  #crash: (error: unknown) => void = () => {};

  constructor() {
    this.crashed = new Promise<never>((_, reject) => {
      this.#crash = reject;
    });
    this.crashed.catch(() => {});
  }

  /** Members still running (or not yet reaped). */
  get size(): number {
    return this.#members.size;
  }

  spawn(options: SpawnProcessOptions): ManagedProcess {
    return this.#add(spawnProcess(options));
  }

  /** Like startProcess; the child is a member from its spawn on, so stopAll() also stops one still starting. */
  async start<T = RegExpMatchArray>(options: StartProcessOptions<T>): Promise<StartedProcess<T>> {
    const proc = new ManagedChild(options, false);
    this.#add(proc);
    return { proc, ready: await untilReady(proc, options.ready) };
  }

  /** A fresh temporary directory, removed by `stopAll()`. */
  async scratchDir(prefix = 'switchyard-'): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.#dirs.add(dir);
    return dir;
  }

  /** Stops every member (each with its grace period, all at once) and removes the scratch dirs; idempotent. */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#members].map((member) => member.stop()));
    const dirs = [...this.#dirs];
    this.#dirs.clear();
    await Promise.allSettled(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }

  #add(proc: ManagedProcess): ManagedProcess {
    this.#members.add(proc);
    proc.crashed.catch((error: unknown) => this.#crash(error));
    void proc.exited.then(() => this.#members.delete(proc));
    return proc;
  }
}
