import type { Client, ServerCapabilities } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { prepareAttempt } from './attempt.js';
import type { CredentialSource } from './auth/upstream-auth.js';
import type { CallCorrelation } from './correlation.js';
import { errorText } from './errors.js';
import { handshake } from './handshake.js';
import type { UpstreamLimits } from './limits.js';
import type { RequestOrigin } from './origin.js';
import { PASS_THROUGH } from './pass-through.js';

/** A connected session to an upstream, and which downstream request each of its requests belongs to. */
export interface SessionPath {
  client: Client;
  correlation: CallCorrelation;
}

export interface LegacyPathDeps {
  config: UpstreamConfig;
  auth: CredentialSource | undefined;
  limits: UpstreamLimits;
  log: Logger;
  /** What the upstream sends on its own on this session, with the origins of the requests in flight on it. */
  notify(method: string, params: unknown, origins: readonly RequestOrigin[]): void;
}

/**
 * The 2025 session path of an upstream the gateway speaks 2026-07-28 to, when the server answers both eras
 * at one Streamable HTTP URL. A 2025 client's calls take it (era affinity): it then gets what it would get
 * from the server directly, which matters for servers whose stateless 2026 path cannot ask the client
 * anything (SDK v1 servers, the conformance suite's reference server) while their session path sends
 * sampling and elicitation requests. It also follows resources when only this path offers subscriptions.
 * Opened on first need, once per connection (again after it drops); `undefined` when the server has none.
 */
export class LegacyPath {
  readonly #deps: LegacyPathDeps;
  #opening: Promise<SessionPath | undefined> | undefined;
  #path: SessionPath | undefined;
  #closed = false;

  constructor(deps: LegacyPathDeps) {
    this.#deps = deps;
  }

  /** Whether an upstream of this config can have one (a second session needs Streamable HTTP). */
  static possible(config: UpstreamConfig): boolean {
    return config.transport.kind === 'http';
  }

  /** The open session, if it is open now. */
  get current(): SessionPath | undefined {
    return this.#path;
  }

  /** What the 2025 side offers, once open. */
  get capabilities(): ServerCapabilities | undefined {
    return this.#path?.client.getServerCapabilities();
  }

  /** Opens the session (or joins the opening in progress); resolves undefined when the server has no 2025 path. */
  open(): Promise<SessionPath | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    this.#opening ??= this.#open();
    return this.#opening;
  }

  async #open(): Promise<SessionPath | undefined> {
    const { config, auth, limits, log, notify } = this.#deps;
    const attempt = prepareAttempt(
      config,
      auth,
      (method, params) => notify(method, params, attempt.correlation.inflight),
      log,
      limits,
    );
    const { client } = attempt;
    try {
      await handshake(client, attempt.transport, { timeoutMs: config.timeoutMs, prior: { kind: 'legacy' } });
    } catch (error) {
      log.debug('no 2025 session path', { error: errorText(error) });
      await client.close().catch(() => {});
      return undefined;
    }
    if (this.#closed || client.getProtocolEra() !== 'legacy') {
      await client.close().catch(() => {});
      return undefined;
    }
    const path = { client, correlation: attempt.correlation };
    client.onclose = () => {
      if (this.#path !== path) return;
      // Opened again on the next need (a restarted server forgot the session).
      this.#path = undefined;
      this.#opening = undefined;
    };
    this.#path = path;
    log.info('opened its 2025 session beside the 2026-07-28 one (2025 clients use it)');
    return path;
  }

  async subscribe(uri: string, timeoutMs: number): Promise<void> {
    await this.#require().request({ method: 'resources/subscribe', params: { uri } } as never, PASS_THROUGH, {
      timeout: timeoutMs,
    });
  }

  async unsubscribe(uri: string, timeoutMs: number): Promise<void> {
    await this.#require().request(
      { method: 'resources/unsubscribe', params: { uri } } as never,
      PASS_THROUGH,
      { timeout: timeoutMs },
    );
  }

  #require(): Client {
    const path = this.#path;
    if (!path) throw new Error('the 2025 session path is not open');
    return path.client;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const path = this.#path ?? (await this.#opening?.catch(() => undefined));
    this.#path = undefined;
    await path?.client.close().catch(() => {});
  }
}
