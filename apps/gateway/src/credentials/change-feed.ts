import { randomUUID } from 'node:crypto';
import type { Logger, Store } from '@switchyard/core';
import { CHANGES_CHANNEL } from './store-keys.js';

/** Hears that `owner`'s credential for `upstream` was stored (`connected`) or dropped. */
export type ChangeListener = (owner: string, upstream: string, connected: boolean) => void;

interface ChangeMessage {
  /** The replica that made the change (it told its own listeners already). */
  o: string;
  i: string;
  u: string;
  c: boolean;
}

/**
 * Connects and disconnects, heard by every replica: a change is told to this replica's listeners at once,
 * and published on the store's `changes` channel (when the store has pub/sub) for the other replicas'.
 * A message carries the owner (`credentialOwner`: the identity's kind and id), the upstream and whether it is connected: never a token.
 */
export class ChangeFeed {
  readonly #store: Store;
  readonly #log: Logger;
  readonly #self = randomUUID();
  readonly #listeners = new Set<ChangeListener>();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(store: Store, logger: Logger) {
    this.#store = store;
    this.#log = logger;
  }

  /** Listens to the other replicas (a no-op without pub/sub). */
  async start(): Promise<void> {
    if (this.#unsubscribe) return;
    this.#unsubscribe = await this.#store.pubsub?.subscribe(CHANGES_CHANNEL, (message) =>
      this.#heard(message),
    );
  }

  /** Calls `listener` on every change, this replica's and the others'; returns how to stop. */
  on(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells this replica's listeners now, and the other replicas' through the store (best effort). */
  async publish(owner: string, upstream: string, connected: boolean): Promise<void> {
    this.#tell(owner, upstream, connected);
    const message: ChangeMessage = { o: this.#self, i: owner, u: upstream, c: connected };
    try {
      await this.#store.pubsub?.publish(CHANGES_CHANNEL, JSON.stringify(message));
    } catch {
      this.#log.warn('other replicas could not be told of a credential change (the store did not answer)', {
        identity: owner,
        upstream,
        connected,
      });
    }
  }

  async close(): Promise<void> {
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    this.#listeners.clear();
    await unsubscribe?.();
  }

  #heard(raw: string): void {
    let message: Partial<ChangeMessage>;
    try {
      message = JSON.parse(raw) as Partial<ChangeMessage>;
    } catch {
      return;
    }
    if (message.o === this.#self) return;
    if (typeof message.i !== 'string' || typeof message.u !== 'string' || typeof message.c !== 'boolean')
      return;
    this.#tell(message.i, message.u, message.c);
  }

  #tell(owner: string, upstream: string, connected: boolean): void {
    for (const listener of this.#listeners) {
      try {
        listener(owner, upstream, connected);
      } catch (error) {
        this.#log.warn('a credential change listener failed', {
          identity: owner,
          upstream,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}
