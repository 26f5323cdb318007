import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedChild, spawnProcess, untilReady } from './child.js';
import type { ManagedProcess, SpawnProcessOptions, StartedProcess, StartProcessOptions } from './types.js';

/** Something started outside a group that can be stopped: a `startRedis()` server, a `startBalancer()`. */
export interface Stoppable {
  stop(): Promise<unknown>;
}

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
  readonly #owned = new Set<Stoppable>();
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

  /**
   * Makes `stopAll()` stop `service` too, a service started outside the group (`startRedis`,
   * `startBalancer`); returns it. Stopping it earlier yourself is fine (its `stop()` should be idempotent,
   * as the testkit's are). Its crashes are not the group's `crashed`.
   */
  own<T extends Stoppable>(service: T): T {
    this.#owned.add(service);
    return service;
  }

  /** A fresh temporary directory, removed by `stopAll()`. */
  async scratchDir(prefix = 'switchyard-'): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.#dirs.add(dir);
    return dir;
  }

  /**
   * Stops every member and owned service (each with its grace period, all at once) and removes the scratch
   * dirs; idempotent.
   */
  async stopAll(): Promise<void> {
    const owned = [...this.#owned];
    this.#owned.clear();
    await Promise.allSettled([
      ...[...this.#members].map((member) => member.stop()),
      ...owned.map((service) => service.stop()),
    ]);
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
