import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logger.js';
import { preview, RateLimitedLog } from '../rate-limited-log.js';
import { DEFAULT_KEY_PREFIX, type RedisStoreConfig } from './redis-config.js';
import { ScopedStore } from './scoped.js';
import { MessageSigner, VALUE_LABEL } from './signed-messages.js';
import {
  type Store,
  type StoreCounters,
  type StorePubSub,
  StoreUnavailableError,
  type UnavailablePolicy,
} from './store.js';

const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
const PROBE_MS = 500;
/** Reconnect backoff: 100 ms, 200 ms, … capped at 2 s, forever (replicas rejoin by themselves). */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 2000);

/**
 * The Redis driver, on ioredis: one connection for commands (no offline queue: while Redis is away a
 * command fails at once instead of waiting) and one for subscriptions (re-established by ioredis
 * after a reconnect). Keys and channels are prefixed here, not by ioredis, so a library given the
 * native client (rate-limiter-flexible) prefixes its keys the same way.
 */
export class RedisStore implements Store {
  readonly driver = 'redis';
  readonly shared = true;
  readonly onUnavailable: UnavailablePolicy;
  readonly #client: Redis;
  readonly #subscriber: Redis;
  readonly #prefix: string;
  readonly #log: Logger;
  /** What a channel's message or listener did wrong, at most once per window. */
  readonly #noise: RateLimitedLog;
  /** With `cursorSecret`: every message is signed, and one no replica signed is dropped. */
  readonly #signer: MessageSigner | undefined;
  /** With `cursorSecret`: every value is signed, and one no replica signed reads as absent. */
  readonly #values: MessageSigner | undefined;
  readonly #listeners = new Set<(available: boolean) => void>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  #available = false;
  #disposed = false;
  /** Pings a store that stopped answering, until it does again. */
  #probe: NodeJS.Timeout | undefined;

  constructor(config: RedisStoreConfig, logger: Logger, secret?: string) {
    this.#prefix = config.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.onUnavailable = config.onUnavailable ?? 'local';
    this.#log = logger;
    this.#noise = new RateLimitedLog(logger);
    this.#signer = secret === undefined ? undefined : new MessageSigner(secret);
    this.#values = secret === undefined ? undefined : new MessageSigner(secret, VALUE_LABEL);
    const options: RedisOptions = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: config.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy,
    };
    this.#client = new Redis(config.url, options);
    // This driver restores its subscriptions itself on every (re)connection, including one whose SUBSCRIBE
    // was lost with the connection before Redis confirmed it (ioredis would restore confirmed ones only).
    this.#subscriber = new Redis(config.url, {
      ...options,
      enableOfflineQueue: false,
      autoResubscribe: false,
      commandTimeout: undefined,
    });
    this.#subscriber.on('ready', () => {
      if (this.#channels.size > 0) this.#subscriber.subscribe(...this.#channels.keys()).catch(() => {});
    });
    this.#client.on('ready', () => {
      if (!this.#probe) this.#setAvailable(true);
    });
    this.#client.on('close', () => this.#setAvailable(false));
    // ioredis reports every failed attempt; the availability change is what the log needs.
    this.#client.on('error', () => {});
    this.#subscriber.on('error', () => {});
    this.#subscriber.on('message', (channel: string, message: string) => this.#deliver(channel, message));
  }

  /** Connects, waiting at most the connect timeout: an unreachable Redis leaves the store unavailable (retrying). */
  async connect(): Promise<void> {
    const connected = Promise.all([this.#client.connect(), this.#subscriber.connect()]);
    await connected.catch((error: unknown) => {
      this.#log.warn('the store is unreachable; retrying in the background', {
        driver: this.driver,
        error: error instanceof Error ? error.message : String(error),
        onUnavailable: this.onUnavailable,
      });
    });
  }

  get available(): boolean {
    return this.#available;
  }

  get native() {
    return { kind: 'redis', client: this.#client, prefix: this.#prefix };
  }

  onAvailability(listener: (available: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get(key: string): Promise<string | undefined> {
    const full = this.#prefix + key;
    return this.#run(async () => this.#opened(full, await this.#client.get(full)));
  }

  set(key: string, stored: string, options?: { ttlMs?: number }): Promise<void> {
    const full = this.#prefix + key;
    const value = this.#values ? this.#values.sign(full, stored) : stored;
    return this.#run(async () => {
      if (options?.ttlMs === undefined) await this.#client.set(full, value);
      else await this.#client.set(full, value, 'PX', Math.max(1, Math.ceil(options.ttlMs)));
    });
  }

  setIfAbsent(key: string, stored: string, options?: { ttlMs?: number }): Promise<boolean> {
    const full = this.#prefix + key;
    const value = this.#values ? this.#values.sign(full, stored) : stored;
    return this.#run(async () => {
      const reply =
        options?.ttlMs === undefined
          ? await this.#client.set(full, value, 'NX')
          : await this.#client.set(full, value, 'PX', Math.max(1, Math.ceil(options.ttlMs)), 'NX');
      return reply === 'OK';
    });
  }

  delete(...keys: string[]): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    return this.#run(async () => {
      await this.#client.del(...keys.map((key) => this.#prefix + key));
    });
  }

  touch(key: string, ttlMs: number): Promise<boolean> {
    return this.#run(
      async () => (await this.#client.pexpire(this.#prefix + key, Math.max(1, Math.ceil(ttlMs)))) === 1,
    );
  }

  readonly counters: StoreCounters = {
    increment: (key, by, ttlMs) => {
      const full = this.#prefix + key;
      return this.#run(async () => {
        const batch = this.#client.multi().incrby(full, by);
        if (ttlMs !== undefined) batch.pexpire(full, Math.max(1, Math.ceil(ttlMs)));
        const results = await batch.exec();
        const [error, value] = results?.[0] ?? [new Error('no reply'), undefined];
        if (error) throw error;
        return Number(value);
      });
    },
  };

  readonly pubsub: StorePubSub = {
    publish: (channel, message) => {
      const full = this.#prefix + channel;
      const sent = this.#signer ? this.#signer.sign(full, message) : message;
      return this.#run(async () => {
        await this.#client.publish(full, sent);
      });
    },
    subscribe: async (channel, listener) => {
      const full = this.#prefix + channel;
      let listeners = this.#channels.get(full);
      if (!listeners) {
        listeners = new Set();
        this.#channels.set(full, listeners);
        // Sent now when connected; otherwise (or if it fails) the next 'ready' subscribes every channel.
        if (this.#subscriber.status === 'ready') this.#subscriber.subscribe(full).catch(() => {});
      }
      listeners.add(listener);
      return async () => {
        const current = this.#channels.get(full);
        if (!current?.delete(listener) || current.size > 0) return;
        this.#channels.delete(full);
        await this.#subscriber.unsubscribe(full).catch(() => {});
      };
    },
  };

  scoped(prefix: string): Store {
    return new ScopedStore(this, prefix);
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    clearInterval(this.#probe);
    this.#listeners.clear();
    this.#channels.clear();
    this.#client.disconnect();
    this.#subscriber.disconnect();
  }

  /** A value as read: with a secret, what a replica signed for this key, else absent (and warned of). */
  #opened(full: string, raw: string | null): string | undefined {
    if (raw === null) return undefined;
    if (!this.#values) return raw;
    const value = this.#values.open(full, raw);
    if (value === undefined) {
      // One key for every value: the log's window table stays bounded whatever keys a writer makes up.
      this.#noise.warn('unsigned-value', 'ignored a store value no replica signed (check cursorSecret)', {
        key: full,
      });
    }
    return value;
  }

  /**
   * Hands a channel's message to its listeners: one no replica signed (with a secret) is dropped, and a
   * listener that throws costs only that message; whatever is published, the replica keeps serving.
   */
  #deliver(channel: string, received: string): void {
    const listeners = this.#channels.get(channel);
    if (!listeners) return;
    const message = this.#signer ? this.#signer.open(channel, received) : received;
    if (message === undefined) {
      this.#noise.warn(
        `unsigned:${channel}`,
        'dropped a store message no replica signed (check cursorSecret)',
        {
          channel,
          message: preview(received, 80),
        },
      );
      return;
    }
    for (const listener of listeners) {
      try {
        listener(message);
      } catch (error) {
        this.#noise.warn(`listener:${channel}`, 'a store message could not be handled; dropped', {
          channel,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.#available) throw new StoreUnavailableError(`the ${this.driver} store is unavailable`);
    try {
      return await command();
    } catch (error) {
      // Connected but not answering within the command timeout: unavailable until a ping gets through,
      // so later requests fail over at once instead of each waiting out the timeout.
      if (error instanceof Error && /timed? ?out/i.test(error.message)) this.#suspect();
      throw new StoreUnavailableError(
        `the ${this.driver} store did not answer: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  #suspect(): void {
    if (this.#probe || this.#disposed) return;
    this.#setAvailable(false);
    this.#probe = setInterval(() => {
      if (this.#client.status !== 'ready') return;
      this.#client.ping().then(
        () => {
          clearInterval(this.#probe);
          this.#probe = undefined;
          this.#setAvailable(true);
        },
        () => {},
      );
    }, PROBE_MS);
    this.#probe.unref();
  }

  #setAvailable(available: boolean): void {
    if (this.#available === available || this.#disposed) return;
    this.#available = available;
    if (available) this.#log.info('the store is available', { driver: this.driver });
    else
      this.#log.warn('the store is unavailable', { driver: this.driver, onUnavailable: this.onUnavailable });
    for (const listener of this.#listeners) listener(available);
  }
}
