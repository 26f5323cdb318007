import type { Client, PriorDiscovery, ServerCapabilities, Transport } from '@modelcontextprotocol/client';
import type { CancelSignal } from '../cancellation.js';
import type { UpstreamConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import { describeTransport } from '../transports/upstream/describe.js';
import { prepareAttempt } from './attempt.js';
import { type CredentialSource, upstreamAuthOf } from './auth/upstream-auth.js';
import { backoffDelay } from './backoff.js';
import { type CallChain, callChain } from './call-chain.js';
import { CallCorrelation } from './correlation.js';
import { describeDown, errorText, mapUpstreamError } from './errors.js';
import { handshake } from './handshake.js';
import { LegacyPath, type SessionPath } from './legacy-path.js';
import { DEFAULT_UPSTREAM_LIMITS, type UpstreamLimits } from './limits.js';
import type { RequestOrigin, UpstreamRequestOptions } from './origin.js';
import { ResourceFollower } from './resource-follower.js';
import { sendRequest } from './send.js';
import { ToolHeaders } from './tool-headers.js';

/** How long a connection must last for its loss to start the reconnect backoff over (250 ms again). */
export const STABLE_CONNECTION_MS = 10_000;

/**
 * Where a connection stands. `personal`: an upstream that authorizes each person (`auth.user`) has no
 * connection of its own; each caller's requests go over that caller's own (PersonalUpstream).
 */
export type UpstreamState = 'idle' | 'connecting' | 'ready' | 'backoff' | 'closed' | 'personal';

export interface UpstreamListener {
  ready(upstream: UpstreamConnection): void;
  down(upstream: UpstreamConnection, error: unknown): void;
  /** A connection attempt failed (the upstream stays in backoff and is retried). */
  failed(upstream: UpstreamConnection, error: unknown): void;
  notification(
    upstream: UpstreamConnection,
    method: string,
    params: Record<string, unknown>,
    origins: readonly RequestOrigin[],
  ): void;
}

/**
 * One upstream MCP server: connects (spawning it for stdio), learns its capabilities, keeps reconnecting
 * with backoff while it is down, and runs every request with the configured timeout.
 */
export class UpstreamConnection {
  readonly name: string;
  readonly config: UpstreamConfig;
  #state = 'idle' as UpstreamState;
  #client: Client | undefined;
  /** A modern HTTP upstream's 2025 session path, for 2025 clients (see LegacyPath); per connection. */
  #legacy: LegacyPath | undefined;
  /**
   * The attempt in progress, until it is adopted or given up: close() ends it too. Its transport is closed
   * directly: during the era probe the SDK client does not hold it yet, and closing the client alone
   * would leave a spawned server running.
   */
  #pending: { client: Client; transport: Transport } | undefined;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastError: unknown;
  #connectedSince: number | undefined;
  /** Connections made since start (1 = never reconnected). */
  #connections = 0;
  /** What the upstream offered when it was last connected (kept while it is down). */
  #known: ServerCapabilities | undefined;
  /** Which downstream request each upstream request (and server-to-client request) belongs to. */
  #correlation = new CallCorrelation();
  /** A legacy era learned at the last connection; the next attempt skips the probe (until one fails). */
  #prior: PriorDiscovery | undefined;
  readonly #follower: ResourceFollower;
  /** Its tools' `x-mcp-header` declarations (SEP-2243), from its own `tools/list` answers. */
  readonly #tools: ToolHeaders;
  readonly #log: Logger;
  readonly #listener: UpstreamListener;
  readonly #chain: CallChain;
  /** The credentials this connection's requests carry (`auth`, or one person's), kept across reconnects. */
  readonly #auth: CredentialSource | undefined;
  readonly #limits: UpstreamLimits;

  constructor(
    config: UpstreamConfig,
    listener: UpstreamListener,
    logger: Logger,
    chain = callChain(),
    limits: UpstreamLimits = DEFAULT_UPSTREAM_LIMITS,
    auth: CredentialSource | undefined = upstreamAuthOf(config),
  ) {
    this.name = config.name;
    this.config = config;
    this.#listener = listener;
    this.#log = logger.child(config.name);
    this.#chain = chain;
    this.#limits = limits;
    this.#auth = auth;
    this.#tools = new ToolHeaders(config.transport.kind === 'http');
    this.#follower = new ResourceFollower(
      {
        name: this.name,
        config,
        timeoutMs: config.timeoutMs,
        current: () => (this.#state === 'ready' ? this.#client : undefined),
        notify: (method, params) => this.#notify(method, params, []),
        mapError: (error, method) => this.#mapError(error, method, undefined),
        unavailable: () => this.#unavailable(),
        request: (method, params, options) => this.request(method, params, options),
      },
      this.#log,
    );
  }

  get state(): UpstreamState {
    return this.#state;
  }

  /** Re-reads the state (after an await, close() may have run). */
  #isClosed(): boolean {
    return this.#state === 'closed';
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.#client ? this.#known : undefined;
  }

  /** The capabilities of the last connection, also while the upstream is down (undefined before the first). */
  get knownCapabilities(): ServerCapabilities | undefined {
    return this.#known;
  }

  get serverInfo() {
    return this.#client?.getServerVersion();
  }

  get protocolVersion(): string | undefined {
    return this.#client?.getNegotiatedProtocolVersion();
  }

  /** 'modern' (2026-07-28+) or 'legacy', once connected. */
  get era(): 'modern' | 'legacy' | undefined {
    return this.#client?.getProtocolEra();
  }

  /** What the upstream's tool `name` declares for `Mcp-Param-*` headers, as far as it has been listed. */
  toolHeaders(name: string) {
    return this.#tools.of(name);
  }

  get lastError(): unknown {
    return this.#lastError;
  }

  /** When the current connection was made (ms since epoch); undefined while not connected. */
  get connectedSince(): number | undefined {
    return this.#state === 'ready' ? this.#connectedSince : undefined;
  }

  /** How many times it connected since start: a count above 1 means it reconnected. */
  get connections(): number {
    return this.#connections;
  }

  start(): void {
    if (this.#state !== 'idle') return;
    void this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'connecting';
    this.#attempt += 1;
    const notify = (method: string, params: unknown) => this.#notify(method, params, correlation.inflight);
    const attempt = prepareAttempt(this.config, this.#auth, notify, this.#log, this.#limits);
    const { client, transport } = attempt;
    const correlation = attempt.correlation;
    const pending = { client, transport };
    this.#pending = pending;
    try {
      await handshake(client, transport, { timeoutMs: this.config.timeoutMs, prior: this.#prior });
    } catch (failure) {
      // A spawned server that exited says so (with its last stderr lines), not what the SDK met of it.
      const error = await attempt.explain(failure, 'before its handshake');
      this.#lastError = error;
      // The next attempt probes the era again: a server restarted on the same address may speak only the
      // other era now, and would refuse `initialize` for ever (a down one costs just the failed probe).
      this.#prior = undefined;
      // The transport too: given up during the era probe, the client does not hold it yet.
      await Promise.all([client.close().catch(() => {}), transport.close().catch(() => {})]);
      if (this.#pending === pending) this.#pending = undefined;
      if (this.#isClosed()) return;
      this.#listener.failed(this, error);
      this.#scheduleReconnect(
        `failed to connect (${describeTransport(this.config.transport)}): ${errorText(error)}`,
      );
      return;
    }
    const legacy =
      client.getProtocolEra() === 'modern' && LegacyPath.possible(this.config)
        ? new LegacyPath({
            config: this.config,
            auth: this.#auth,
            limits: this.#limits,
            log: this.#log,
            notify: (method, params, origins) => this.#notify(method, params, origins),
          })
        : undefined;
    const capabilities = await this.#follower.connected(client, legacy);
    if (this.#pending === pending) this.#pending = undefined;
    if (this.#isClosed()) {
      this.#follower.dropped();
      await legacy?.close();
      await client.close().catch(() => {});
      return;
    }
    this.#client = client;
    this.#legacy = legacy;
    this.#correlation = correlation;
    this.#state = 'ready';
    this.#connectedSince = Date.now();
    this.#connections += 1;
    this.#known = capabilities;
    // Only a legacy verdict is kept (it skips the era probe), until an attempt fails. A modern upstream is
    // discovered afresh each time: adopting the last result "connects" without reaching the server, so a
    // down upstream would look ready and never back off, and a restarted one could offer something else now.
    this.#prior = client.getProtocolEra() === 'modern' ? undefined : { kind: 'legacy' };
    // The backoff starts over only once this connection has lasted (`#lost`): a server that exits right
    // after its handshake would otherwise be restarted every 250 ms for ever.
    this.#lastError = undefined;
    client.onclose = () => this.#onClosed(client);
    const info = client.getServerVersion();
    this.#log.info('connected', {
      server: info ? `${info.name}@${info.version}` : undefined,
      protocol: client.getNegotiatedProtocolVersion(),
      era: client.getProtocolEra(),
    });
    if (client.getProtocolEra() === 'modern') this.#follower.openChangeStream(client, capabilities);
    this.#listener.ready(this);
  }

  #onClosed(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#follower.dropped();
    void this.#dropLegacy();
    if (this.#state === 'closed') return;
    const error = new Error('connection closed');
    this.#lastError = error;
    // Not ready any more before anyone hears of it (listeners may ask, e.g. a plugin's canSubscribe).
    this.#state = 'backoff';
    this.#lost();
    this.#listener.down(this, error);
    this.#scheduleReconnect('connection lost');
  }

  /** A connection that lasted `STABLE_CONNECTION_MS` starts the backoff over; a shorter one goes on with it. */
  #lost(): void {
    if (this.#connectedSince !== undefined && Date.now() - this.#connectedSince >= STABLE_CONNECTION_MS)
      this.#attempt = 0;
  }

  #scheduleReconnect(reason: string): void {
    this.#state = 'backoff';
    const delay = backoffDelay(this.#attempt);
    const log = this.#attempt <= 1 ? this.#log.warn : this.#log.debug;
    log(`${reason}; retrying in ${delay} ms`, { attempt: this.#attempt });
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#connect();
    }, delay);
    this.#timer.unref?.();
  }

  /** Drops the current connection (if any) and reconnects; used when an HTTP upstream stops answering. */
  #markBroken(error: unknown): void {
    const client = this.#client;
    if (!client || this.#state !== 'ready') return;
    this.#client = undefined;
    this.#follower.dropped();
    void this.#dropLegacy();
    this.#lastError = error;
    this.#state = 'backoff';
    this.#lost();
    this.#listener.down(this, error);
    void client.close().catch(() => {});
    this.#scheduleReconnect(`request failed: ${errorText(error)}`);
  }

  #notify(method: string, params: unknown, origins: readonly RequestOrigin[]): void {
    const p = (params ?? {}) as Record<string, unknown>;
    this.#listener.notification(this, method, p, origins);
  }

  /** Drops the 2025 session path kept beside the connection that is gone; resolves once it is closed. */
  async #dropLegacy(): Promise<void> {
    const legacy = this.#legacy;
    this.#legacy = undefined;
    await legacy?.close();
  }

  /**
   * Whether this upstream, spoken to in 2026-07-28, also has a 2025 session path (Streamable HTTP, and the
   * server answers `initialize`): opened now if need be, once per connection. See `LegacyPath`.
   */
  async hasLegacyPath(): Promise<boolean> {
    const legacy = this.#legacy;
    return this.era === 'modern' && legacy !== undefined && (await legacy.open()) !== undefined;
  }

  /**
   * Sends one request upstream (through the upstream-call middleware and telemetry). Resolves with the
   * raw result or rejects with a GatewayError: the upstream's own JSON-RPC error, `upstream_timeout`
   * (after cancelling upstream) or `upstream_unavailable`.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.#chain(this.name, method, params, options.origin?.context, (p) =>
      this.#send(method, p, options),
    );
  }

  async #send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions,
  ): Promise<Record<string, unknown>> {
    const main = this.#client;
    if (!main || this.#state !== 'ready') throw this.#unavailable();
    const path: SessionPath = (options.path === 'legacy' ? this.#legacy?.current : undefined) ?? {
      client: main,
      correlation: this.#correlation,
    };
    try {
      const { timeoutMs } = this.config;
      return await sendRequest(
        path.client,
        path.correlation,
        method,
        params,
        options,
        timeoutMs,
        this.#tools,
      );
    } catch (error) {
      if (options.deadline?.expired)
        throw GatewayError.upstreamTimeout(this.name, method, this.config.timeoutMs);
      throw this.#mapError(error, method, options.signal, params);
    }
  }

  /**
   * Subscribes to `uri` upstream: `resources/subscribe` on a legacy server, a `subscriptions/listen`
   * stream (re-opened if it drops) on a modern one. Updates arrive as notifications either way.
   */
  subscribe(uri: string, options: UpstreamRequestOptions = {}): Promise<void> {
    return this.#follower.subscribe(uri, options);
  }

  unsubscribe(uri: string, options: UpstreamRequestOptions = {}): Promise<void> {
    return this.#follower.unsubscribe(uri, options);
  }

  #unavailable(): GatewayError {
    return GatewayError.upstreamUnavailable(
      this.name,
      this.#state === 'closed' ? 'gateway shutting down' : describeDown(this.#lastError),
    );
  }

  #mapError(
    error: unknown,
    method: string,
    signal: CancelSignal | undefined,
    params?: unknown,
  ): GatewayError {
    return mapUpstreamError(error, {
      upstream: this.name,
      method,
      signal,
      params,
      timeoutMs: this.config.timeoutMs,
      // A broken HTTP-ish connection is dropped and reconnected; a stdio child reports its own death.
      broken: this.config.transport.kind === 'stdio' ? undefined : (e) => this.#markBroken(e),
    });
  }

  /**
   * Closes the connection for good, and an attempt still in its handshake too: a spawned server is stopped
   * (stdin end, SIGTERM, SIGKILL) before this resolves, whatever state it was in.
   */
  async close(): Promise<void> {
    this.#state = 'closed';
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    const pending = this.#pending;
    this.#client = undefined;
    this.#pending = undefined;
    this.#follower.dropped();
    await Promise.all([
      this.#dropLegacy(),
      client?.close().catch(() => {}),
      pending?.client.close().catch(() => {}),
      pending?.transport.close().catch(() => {}),
    ]);
  }
}
