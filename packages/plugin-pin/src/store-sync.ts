import type { Logger, Store } from '@switchyard/core';
import type { BackgroundWork } from './background.js';
import { type LockFile, mergeLocks, serializeLock } from './lock-file.js';
import type { LockKeeper } from './lock-keeper.js';
import { SharedPins } from './shared.js';
import type { PinState } from './state.js';

/**
 * Keeping the pins the same across replicas through the shared store (DESIGN §12; the key and channel
 * are in shared.ts): at start the store's pins are merged in (the store wins per server) or seeded from
 * the lock file; a change here is put in the store (later, when it does not answer); another replica's
 * change is pulled in and written to the lock file (not shared again); and when the store answers
 * again, what changed here meanwhile is pushed, or the store's pins are taken.
 */
export class StoreSync {
  readonly #shared: SharedPins;
  readonly #log: Logger;
  /** The pins and their lock file, once the plugin has them (store messages before that are ignored). */
  #pins: { state: PinState; keeper: LockKeeper } | undefined;
  /** A change made while the store did not answer: pushed when it is back. */
  #unshared = false;
  /** The store did not answer at start: its pins are merged in when it is back. */
  #unjoined = false;

  private constructor(shared: SharedPins, log: Logger) {
    this.#shared = shared;
    this.#log = log;
  }

  /** Listens to the other replicas' changes and to the store coming back (handled as background work). */
  static async open(store: Store, log: Logger, background: BackgroundWork): Promise<StoreSync> {
    let sync: StoreSync | undefined;
    const shared = await SharedPins.open(store, log, {
      changed: () => {
        if (sync !== undefined && sync.#pins !== undefined) background.run(() => sync!.pull());
      },
      available: () => {
        if (sync !== undefined && sync.#pins !== undefined) background.run(() => sync!.rejoin());
      },
    });
    sync = new StoreSync(shared, log);
    return sync;
  }

  /** The store's pins at start: undefined when it has none, or does not answer (then merged in when it is back). */
  async read(): Promise<LockFile | undefined> {
    try {
      return await this.#shared.read();
    } catch (error) {
      this.#unjoined = true;
      this.#log.warn('the store does not answer: pins from the lock file only, until it does', {
        error: String(error),
      });
      return undefined;
    }
  }

  /** Hands over the pins (made from the lock file and the store's pins) and their lock file. */
  attach(state: PinState, keeper: LockKeeper): void {
    this.#pins = { state, keeper };
  }

  /**
   * At start: the lock file follows the store's pins where they won (a restart keeps them), and the
   * store gets the servers only the lock file had; without pins in the store, the lock file's seed it.
   */
  async join(local: LockFile | undefined, stored: LockFile | undefined): Promise<void> {
    const { state, keeper } = this.#attached();
    if (stored !== undefined) {
      const lock = serializeLock(state.lock);
      const storeBehind = serializeLock(stored) !== lock;
      if (local === undefined || serializeLock(local) !== lock) {
        this.#log.info('pins taken from the store', { file: keeper.file });
        await keeper.write({ share: storeBehind });
      } else if (storeBehind) await this.share();
    } else if (local !== undefined && !this.#unjoined) await this.share(); // the first replica with a store
  }

  /** Applies the store's pins (another replica changed them): the lock file is rewritten to match. */
  async pull(): Promise<void> {
    const { state, keeper } = this.#attached();
    // Our own writes first: an approval being written here must not be undone by an older store value.
    await keeper.settled();
    let lock: LockFile | undefined;
    try {
      lock = await this.#shared.read();
    } catch {
      return; // unavailable: `rejoin` reads again when it is back
    }
    if (lock === undefined || serializeLock(lock) === keeper.applied) return;
    state.replaceLock(lock);
    this.#log.info('pins applied from the store (another replica changed them)', {
      quarantined: state.quarantined().length,
    });
    await keeper.write({ share: false });
  }

  /**
   * The store answers again: push what changed here meanwhile (this replica's pins win: an approval
   * made while the store was down is kept), else take the store's (merged in, store wins per server,
   * when it never answered since the start).
   */
  async rejoin(): Promise<void> {
    const { state, keeper } = this.#attached();
    if (this.#unjoined && !this.#unshared) {
      let stored: LockFile | undefined;
      try {
        stored = await this.#shared.read();
      } catch {
        return;
      }
      this.#unjoined = false;
      if (stored === undefined) return void (await this.share());
      const merged = mergeLocks(state.lock, stored);
      if (serializeLock(merged) !== keeper.applied) {
        state.replaceLock(merged);
        await keeper.write({ share: serializeLock(merged) !== serializeLock(stored) });
      }
      return;
    }
    this.#unjoined = false;
    if (this.#unshared) await this.share();
    else await this.pull();
  }

  /** Puts the pins in effect in the store (when it does not answer: later, when it is back). */
  async share(): Promise<void> {
    if (this.#unjoined) {
      this.#unshared = true; // pushed when the store is back
      return;
    }
    this.#unshared = !(await this.#shared.push(serializeLock(this.#attached().state.lock)));
  }

  async close(): Promise<void> {
    await this.#shared.close();
  }

  #attached(): { state: PinState; keeper: LockKeeper } {
    if (this.#pins === undefined) throw new Error('store sync used before the pins were attached');
    return this.#pins;
  }
}
