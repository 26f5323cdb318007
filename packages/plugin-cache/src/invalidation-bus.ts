import { randomUUID } from 'node:crypto';
import type { StorePubSub } from '@switchyard/core';

/** What one replica tells the others: drop a URI (every identity's entries), or everything. */
export type Invalidation = { readonly uri: string } | { readonly all: true };

/** The channel (inside the plugin's scope) every replica's cache listens on. */
export const INVALIDATION_CHANNEL = 'invalidate';

interface Message {
  from: string;
  uri?: string;
  all?: boolean;
  probe?: string;
}

/**
 * Invalidations between replicas over the store's pub/sub. Each replica evicts its first level when it
 * hears another replica's message; its own messages (pub/sub reaches the publisher too) are ignored,
 * since it evicted before publishing. Delivery is at most once: a replica that was cut off from the
 * store may have missed messages, which is why the cache clears its first level whenever the store's
 * availability changes.
 */
export class InvalidationBus {
  readonly #pubsub: StorePubSub;
  readonly #id = randomUUID();
  readonly #probes = new Map<string, (heard: boolean) => void>();
  #stop: (() => Promise<void>) | undefined;
  #listening = false;

  private constructor(pubsub: StorePubSub) {
    this.#pubsub = pubsub;
  }

  /** Subscribes to the invalidation channel; `onInvalidation` hears the other replicas' messages. */
  static async open(
    pubsub: StorePubSub,
    onInvalidation: (invalidation: Invalidation) => void,
  ): Promise<InvalidationBus> {
    const bus = new InvalidationBus(pubsub);
    bus.#stop = await pubsub.subscribe(INVALIDATION_CHANNEL, (raw) => bus.#receive(raw, onInvalidation));
    return bus;
  }

  /** Tells every replica (this one included, which ignores it). Rejects when the store does not answer. */
  publish(invalidation: Invalidation): Promise<void> {
    const message: Message =
      'all' in invalidation ? { from: this.#id, all: true } : { from: this.#id, uri: invalidation.uri };
    return this.#pubsub.publish(INVALIDATION_CHANNEL, JSON.stringify(message));
  }

  /**
   * Resolves to true once this replica has heard a message of its own on the channel (so the
   * subscription is in place and other replicas' messages reach it), or false after `timeoutMs` or when
   * the store does not answer.
   */
  async listening(timeoutMs: number): Promise<boolean> {
    if (this.#listening) return true;
    const nonce = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      this.#probes.set(nonce, resolve);
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
    });
    try {
      await this.#pubsub.publish(INVALIDATION_CHANNEL, JSON.stringify({ from: this.#id, probe: nonce }));
      return await heard;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.#probes.delete(nonce);
    }
  }

  /** Forgets that this replica was heard on the channel (the store went away: so may the subscription). */
  deaf(): void {
    this.#listening = false;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    const stop = this.#stop;
    this.#stop = undefined;
    for (const resolve of this.#probes.values()) resolve(false);
    this.#probes.clear();
    await stop?.().catch(() => {});
  }

  #receive(raw: string, onInvalidation: (invalidation: Invalidation) => void): void {
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    if (message.from === this.#id) {
      this.#listening = true;
      if (typeof message.probe === 'string') this.#probes.get(message.probe)?.(true);
      return;
    }
    if (message.all === true) onInvalidation({ all: true });
    else if (typeof message.uri === 'string') onInvalidation({ uri: message.uri });
  }
}
