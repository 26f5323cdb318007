import type { Logger } from '@switchyard/core';
import type { BackgroundWork } from './background.js';
import { definitionsFile, readDefinitions, writeDefinitions } from './definitions.js';
import { type Announce, approvals } from './events.js';
import { type LockFile, readLock, serializeLock, writeLock } from './lock-file.js';
import type { PinState } from './state.js';
import { watchFile } from './watch.js';

/** The identity and source of an approval read from a rewritten lock file (`switchyard pin`, an editor). */
const LOCK_FILE = 'lock-file';

/** What the lock keeper is given besides the file and the pin state. */
export interface LockKeeperLinks {
  /** Announces the pins a rewritten lock file sets (`pin.approved`, source `lock-file`). */
  announce: Announce;
  /** Puts the pins in effect in the shared store (store-sync.ts), when there is one. */
  share?: () => Promise<void>;
}

/**
 * Where the pins are persisted: the lock file the pin state mirrors (written in order and atomically
 * on first use, on approval and when the store's pins change; watched, and a rewrite by `switchyard
 * pin`, an editor or another replica applied) and the pinned definitions sidecar beside it (for the
 * diff after a restart). Our own writes are not re-applied: the text last written or applied is kept,
 * and watch events are ignored while a write is due.
 */
export class LockKeeper {
  readonly #file: string;
  readonly #definitions: string;
  readonly #log: Logger;
  readonly #state: PinState;
  readonly #announce: Announce;
  readonly #share: (() => Promise<void>) | undefined;
  /** Writes in order; while one is due, a change on disk is our own and is not applied. */
  #writing: Promise<void> = Promise.resolve();
  #pendingWrites = 0;
  /** The text last written or applied: a watch event showing it changes nothing. */
  #applied: string;
  #stopWatch: (() => void) | undefined;

  /** `lock` is what the state was made from (undefined: no lock file, nothing applied yet). */
  constructor(
    file: string,
    log: Logger,
    state: PinState,
    lock: LockFile | undefined,
    links: LockKeeperLinks,
  ) {
    this.#file = file;
    this.#definitions = definitionsFile(file);
    this.#log = log;
    this.#state = state;
    this.#announce = links.announce;
    this.#share = links.share;
    this.#applied = lock === undefined ? '' : serializeLock(lock);
  }

  /** The lock file's path. */
  get file(): string {
    return this.#file;
  }

  /** The lock text last written or applied (serialized). */
  get applied(): string {
    return this.#applied;
  }

  /** Resolves when the writes asked for so far are done. */
  settled(): Promise<void> {
    return this.#writing;
  }

  /** Learns the pinned definitions in the sidecar (read at start, and after a rewrite by `switchyard pin`). */
  async learnDefinitions(): Promise<void> {
    for (const [digest, entry] of await readDefinitions(this.#definitions)) {
      this.#state.remember(entry.kind, digest, entry.definition);
    }
  }

  /** Starts watching the lock file: a rewrite is reloaded as background work. */
  watch(background: BackgroundWork): void {
    this.#stopWatch = watchFile(this.#file, () => background.run(() => this.reload()));
  }

  stopWatching(): void {
    this.#stopWatch?.();
  }

  /** Applies the lock file as it is on disk now (a rewrite by `switchyard pin`, an editor, another replica). */
  async reload(): Promise<void> {
    if (this.#pendingWrites > 0) return;
    let lock: LockFile | undefined;
    try {
      lock = await readLock(this.#file);
    } catch (error) {
      this.#log.error('lock file not applied; the previous pins stay in effect', { error: String(error) });
      return;
    }
    if (lock === undefined || this.#pendingWrites > 0) return;
    const text = serializeLock(lock);
    if (text === this.#applied) return;
    this.#applied = text;
    const before = this.#state.lock;
    this.#state.replaceLock(lock);
    this.#log.info('lock file applied', { file: this.#file, quarantined: this.#state.quarantined().length });
    // `switchyard pin` writes the definitions beside the lock first: learn them, and prune the file.
    await this.learnDefinitions();
    await this.#writeDefinitions(lock);
    await Promise.all(approvals(before, lock).map((pin) => this.#announce(pin, LOCK_FILE, LOCK_FILE)));
    await this.#share?.();
  }

  /**
   * Writes the pins as they are now (after the writes before it), atomically, then the definitions
   * beside them, and (with `share`, the default) puts them in the shared store; resolves to whether the
   * lock file could be written.
   */
  write({ share = true }: { share?: boolean } = {}): Promise<boolean> {
    this.#pendingWrites += 1;
    const done = this.#writing.then(async () => {
      const lock = this.#state.lock;
      let written: boolean;
      try {
        await writeLock(this.#file, lock);
        written = true;
      } catch (error) {
        this.#log.error('could not write the lock file', { file: this.#file, error: String(error) });
        written = false;
      } finally {
        this.#applied = serializeLock(lock);
        this.#pendingWrites -= 1;
      }
      await this.#writeDefinitions(lock);
      if (share) await this.#share?.();
      return written;
    });
    this.#writing = done.then(() => {});
    return done;
  }

  /** The pinned definitions beside the lock file (for the diff after a restart); a failure costs only the diff. */
  async #writeDefinitions(lock: LockFile): Promise<void> {
    try {
      await writeDefinitions(this.#definitions, lock, this.#state.known);
    } catch (error) {
      this.#log.warn('could not write the pinned definitions (the status page loses the diff)', {
        file: this.#definitions,
        error: String(error),
      });
    }
  }
}
