import { randomUUID } from 'node:crypto';
import type { Logger, Store } from '@switchyard/core';
import { type LockFile, parseLock } from './lock-file.js';

/** The store key holding the pins (the lock file's text), and the channel a change is told on. */
const KEY = 'lock';
const CHANNEL = 'lock';

/**
 * The pins in the gateway's shared store (DESIGN §12), so that replicas with their own lock files
 * enforce the same pins: the lock file's text under one key, and a message on the plugin's channel
 * after each change (`{ "from": <replica> }`: a replica hearing another one's message reads the key,
 * so every replica ends on the last value written, whatever order the messages arrive in).
 */
export class SharedPins {
  readonly #store: Store;
  readonly #log: Logger;
  readonly #id = randomUUID();
  #stop: (() => Promise<void>) | undefined;
  #stopAvailability: (() => void) | undefined;

  private constructor(store: Store, log: Logger) {
    this.#store = store;
    this.#log = log;
  }

  /** Listens for other replicas' changes (`changed`) and for the store coming back (`available`). */
  static async open(
    store: Store,
    log: Logger,
    on: { changed: () => void; available: () => void },
  ): Promise<SharedPins> {
    const shared = new SharedPins(store, log);
    shared.#stopAvailability = store.onAvailability((available) => {
      if (available) on.available();
    });
    shared.#stop = await store.pubsub?.subscribe(CHANNEL, (raw) => {
      let from: unknown;
      try {
        from = (JSON.parse(raw) as { from?: unknown }).from;
      } catch {
        return;
      }
      if (from !== shared.#id) on.changed();
    });
    return shared;
  }

  /** The pins in the store: undefined when there are none (or they are invalid, logged); rejects while it is unavailable. */
  async read(): Promise<LockFile | undefined> {
    const text = await this.#store.get(KEY);
    if (text === undefined) return undefined;
    try {
      return parseLock(text, 'in the store');
    } catch (error) {
      this.#log.error('pins in the store not applied', { error: String(error) });
      return undefined;
    }
  }

  /** Writes the pins to the store and tells the other replicas; resolves to whether it could (logged if not). */
  async push(text: string): Promise<boolean> {
    try {
      await this.#store.set(KEY, text);
      await this.#store.pubsub?.publish(CHANNEL, JSON.stringify({ from: this.#id }));
      return true;
    } catch (error) {
      this.#log.warn('could not share the pins through the store: this replica keeps them until it can', {
        error: String(error),
      });
      return false;
    }
  }

  async close(): Promise<void> {
    this.#stopAvailability?.();
    await this.#stop?.();
  }
}
