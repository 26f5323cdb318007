import type { Client, ServerCapabilities } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { LegacyPath } from './legacy-path.js';
import { type ListenHost, ListenStreams } from './listen-streams.js';
import type { UpstreamRequestOptions } from './origin.js';

export interface FollowerHost extends ListenHost {
  readonly config: UpstreamConfig;
  /** Sends a request on the upstream's main connection. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: UpstreamRequestOptions,
  ): Promise<Record<string, unknown>>;
}

/**
 * How one upstream follows resources: `resources/subscribe` on a legacy server, a `subscriptions/listen`
 * stream per URI on a modern one, and — for a server that answers both eras but follows resources only
 * on its legacy session path — that legacy session. Updates arrive as notifications either way.
 */
export class ResourceFollower {
  readonly #host: FollowerHost;
  readonly #streams: ListenStreams;
  readonly #log: Logger;
  /** The upstream's 2025 session path, when resources are followed there. */
  #legacySide: LegacyPath | undefined;

  constructor(host: FollowerHost, logger: Logger) {
    this.#host = host;
    this.#log = logger;
    this.#streams = new ListenStreams(host, logger);
  }

  /**
   * A new connection: a modern upstream that declares no resource subscriptions is checked for a 2025
   * session path (`legacy`) that has them. Resolves to the capabilities the gateway can count on.
   */
  async connected(client: Client, legacy: LegacyPath | undefined): Promise<ServerCapabilities | undefined> {
    const capabilities = client.getServerCapabilities();
    const resources = capabilities?.resources;
    if (client.getProtocolEra() !== 'modern' || !resources || resources.subscribe || !legacy) {
      return capabilities;
    }
    if (!(await legacy.open()) || !legacy.capabilities?.resources?.subscribe) return capabilities;
    this.#legacySide = legacy;
    this.#log.info(
      'following resources on the legacy session path (the modern side declares no subscriptions)',
    );
    return { ...capabilities, resources: { ...resources, subscribe: true } };
  }

  /** The connection is gone (its owner closes the 2025 session path with it). */
  dropped(): void {
    this.#legacySide = undefined;
  }

  openChangeStream(client: Client, capabilities: ServerCapabilities | undefined): void {
    this.#streams.openChangeStream(client, capabilities);
  }

  async subscribe(uri: string, options: UpstreamRequestOptions): Promise<void> {
    const side = this.#legacySide;
    if (side) {
      await side
        .subscribe(uri, this.#host.timeoutMs)
        .catch((error) => Promise.reject(this.#host.mapError(error, 'resources/subscribe')));
    } else if (this.#host.current()?.getProtocolEra() === 'modern') {
      await this.#streams.subscribe(uri);
    } else {
      await this.#host.request('resources/subscribe', { uri }, options);
    }
  }

  async unsubscribe(uri: string, options: UpstreamRequestOptions): Promise<void> {
    const side = this.#legacySide;
    if (this.#streams.has(uri)) {
      await this.#streams.unsubscribe(uri);
    } else if (side) {
      await side
        .unsubscribe(uri, this.#host.timeoutMs)
        .catch((error) => Promise.reject(this.#host.mapError(error, 'resources/unsubscribe')));
    } else {
      await this.#host.request('resources/unsubscribe', { uri }, options);
    }
  }
}
