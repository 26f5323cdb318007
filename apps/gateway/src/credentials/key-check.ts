import type { Store } from '@switchyard/core';
import type { KeyRing } from './key-ring.js';
import { KEY_CHECK_KEY } from './store-keys.js';

const CHECK_TEXT = 'switchyard credentials key check';

/**
 * Tells a replica whether its `credentials.key` is the one the stored credentials are sealed under: one
 * value (`keycheck`) sealed under the current key. A value this replica cannot open is deleted only when
 * the key check opens, i.e. when the value is damaged or sealed under a key everyone dropped; a replica
 * whose key is wrong or out of date (a rolling rotation half done) then leaves everyone's credentials alone
 * instead of deleting them all.
 */
export class KeyCheck {
  readonly #store: Store;
  readonly #ring: KeyRing;

  constructor(store: Store, ring: KeyRing) {
    this.#store = store;
    this.#ring = ring;
  }

  /**
   * Whether the key check opens under this replica's keys. Writes it when there is none yet, and seals it
   * again under the current key when a previous key opened it (so replicas still on that previous key
   * learn that theirs is out of date).
   */
  async matches(): Promise<boolean> {
    const raw = await this.#store.get(KEY_CHECK_KEY);
    if (raw === undefined) {
      const written = await this.#store.setIfAbsent(KEY_CHECK_KEY, this.#sealed());
      return written || this.matches();
    }
    const opened = this.#ring.open(raw, KEY_CHECK_KEY);
    if (opened?.plain !== CHECK_TEXT) return false;
    if (opened.stale) await this.#store.set(KEY_CHECK_KEY, this.#sealed());
    return true;
  }

  #sealed(): string {
    return this.#ring.seal(CHECK_TEXT, KEY_CHECK_KEY);
  }
}
