import type { Client, McpSubscription, ServerCapabilities } from '@modelcontextprotocol/client';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import { errorText } from './errors.js';

/** Pause before re-opening a listen stream that ended, so a server that ends them at once is not hammered. */
const STREAM_REOPEN_MS = 500;

/** What the streams need from the connection they belong to. */
export interface ListenHost {
  readonly name: string;
  readonly timeoutMs: number;
  /** The live client while the connection is ready (else undefined). */
  current(): Client | undefined;
  /** Hands an upstream notification (received on a stream) to the gateway. */
  notify(method: string, params: Record<string, unknown>): void;
  mapError(error: unknown, method: string): GatewayError;
  unavailable(): GatewayError;
}

/**
 * A modern (2026-07-28) upstream's `subscriptions/listen` streams: one per subscribed resource URI, and
 * one for the list changes it announces (resources, tools, prompts), each re-opened if it drops while
 * still wanted. Legacy upstreams use `resources/subscribe` and need none of this.
 */
export class ListenStreams {
  /** One stream per subscribed URI (undefined while it is being opened). */
  readonly #byUri = new Map<string, McpSubscription | undefined>();
  readonly #host: ListenHost;
  readonly #log: Logger;

  constructor(host: ListenHost, logger: Logger) {
    this.#host = host;
    this.#log = logger;
  }

  /**
   * A modern upstream announces list changes only on a listen stream that asks for them: keep one open
   * for the life of the connection (re-opened if it drops), so its list_changed reaches the gateway.
   */
  openChangeStream(client: Client, capabilities: ServerCapabilities | undefined): void {
    const filter = {
      ...(capabilities?.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(capabilities?.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(capabilities?.prompts?.listChanged ? { promptsListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    client
      .listen(filter, { timeout: this.#host.timeoutMs })
      .then((subscription) => {
        if (this.#host.current() !== client) {
          void subscription.close();
          return;
        }
        void subscription.closed.then((how) => {
          if (how === 'local' || this.#host.current() !== client) return;
          this.#log.debug('list-change stream ended; re-opening', { how });
          setTimeout(() => {
            if (this.#host.current() === client) this.openChangeStream(client, capabilities);
          }, STREAM_REOPEN_MS).unref();
        });
      })
      .catch((error) => this.#log.warn('could not open the list-change stream', { error: errorText(error) }));
  }

  has(uri: string): boolean {
    return this.#byUri.has(uri);
  }

  /** Follows `uri` on its own stream; rejects when the upstream does not honour the subscription. */
  async subscribe(uri: string): Promise<void> {
    this.#byUri.set(uri, undefined);
    try {
      await this.#open(uri);
    } catch (error) {
      this.#byUri.delete(uri);
      throw error;
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    const subscription = this.#byUri.get(uri);
    this.#byUri.delete(uri);
    await subscription?.close();
  }

  async #open(uri: string): Promise<void> {
    const client = this.#host.current();
    if (!client) throw this.#host.unavailable();
    let subscription: McpSubscription;
    try {
      subscription = await client.listen({ resourceSubscriptions: [uri] }, { timeout: this.#host.timeoutMs });
    } catch (error) {
      throw this.#host.mapError(error, 'subscriptions/listen');
    }
    if (!subscription.honoredFilter.resourceSubscriptions?.includes(uri)) {
      await subscription.close();
      throw GatewayError.invalidParams(
        `Upstream '${this.#host.name}' did not accept a subscription to ${uri}.`,
        { upstream: this.#host.name },
      );
    }
    if (!this.#byUri.has(uri)) {
      await subscription.close(); // unsubscribed while the stream was opening
      return;
    }
    this.#byUri.set(uri, subscription);
    void subscription.closed.then((how) => {
      if (how === 'local' || this.#byUri.get(uri) !== subscription) return;
      // The stream dropped while still wanted: open it again (a dead connection is handled by reconnect).
      this.#byUri.set(uri, undefined);
      if (this.#host.current() !== client) return;
      this.#log.debug('listen stream ended; re-opening', { uri, how });
      setTimeout(() => {
        if (this.#host.current() !== client || this.#byUri.get(uri) !== undefined || !this.#byUri.has(uri))
          return;
        this.#open(uri).then(
          // Updates sent while the stream was down are lost: say the resource may have changed.
          () => this.#host.notify('notifications/resources/updated', { uri }),
          (error) => this.#log.warn('could not re-open a listen stream', { uri, error: errorText(error) }),
        );
      }, STREAM_REOPEN_MS).unref();
    });
  }
}
