import type { Client } from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { CORE_VERSION } from '../version.js';
import type { UpstreamCredentials } from './auth/upstream-auth.js';
import { errorText } from './errors.js';
import { HttpClientTransport } from './http-client-transport.js';
import { PASS_THROUGH } from './pass-through.js';

/**
 * The legacy session path of an upstream that answers both eras at one URL but follows resources only
 * there: its 2026-07-28 side declares no resource subscriptions, its 2025 session side does. The
 * gateway speaks modern to it and keeps this second, legacy session for `resources/subscribe` and the
 * `updated` notifications it brings, so no capability is lost (DESIGN §6: both eras, any combination).
 */
export class LegacySide {
  readonly #client: Client;

  private constructor(client: Client) {
    this.#client = client;
  }

  /**
   * Opens the legacy session of a Streamable HTTP upstream and keeps it when it offers resource
   * subscriptions; undefined otherwise (nothing to gain), or when it cannot be opened.
   */
  static async open(
    config: UpstreamConfig,
    notify: (method: string, params: Record<string, unknown>) => void,
    log: Logger,
    credentials?: UpstreamCredentials,
  ): Promise<LegacySide | undefined> {
    if (config.transport.kind !== 'http') return undefined;
    const client = new SdkClient({ name: 'switchyard', version: CORE_VERSION }, { capabilities: {} });
    client.setNotificationHandler('notifications/resources/updated', (n) =>
      notify(n.method, (n.params ?? {}) as Record<string, unknown>),
    );
    client.onerror = (error) => log.debug('legacy side: transport error', { error: error.message });
    try {
      const { url, headers } = config.transport;
      const transport = new HttpClientTransport(new URL(url), headers, credentials);
      await client.connect(transport, { timeout: config.timeoutMs });
    } catch (error) {
      log.debug('no legacy session path to follow resources on', { error: errorText(error) });
      await client.close().catch(() => {});
      return undefined;
    }
    if (client.getProtocolEra() !== 'legacy' || !client.getServerCapabilities()?.resources?.subscribe) {
      await client.close().catch(() => {});
      return undefined;
    }
    log.info('following resources on the legacy session path (the modern side declares no subscriptions)');
    return new LegacySide(client);
  }

  async subscribe(uri: string, timeoutMs: number): Promise<void> {
    await this.#client.request({ method: 'resources/subscribe', params: { uri } } as never, PASS_THROUGH, {
      timeout: timeoutMs,
    });
  }

  async unsubscribe(uri: string, timeoutMs: number): Promise<void> {
    await this.#client.request({ method: 'resources/unsubscribe', params: { uri } } as never, PASS_THROUGH, {
      timeout: timeoutMs,
    });
  }

  async close(): Promise<void> {
    await this.#client.close().catch(() => {});
  }
}
