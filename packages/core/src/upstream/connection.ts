import type {
  McpSubscription,
  PriorDiscovery,
  ServerCapabilities,
  StandardSchemaV1,
} from '@modelcontextprotocol/client';
import { Client, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import type { RequestContext } from '../context.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { UpstreamCallMiddleware } from '../plugins/define.js';
import type { GatewayTelemetry } from '../telemetry.js';
import { CORE_VERSION } from '../version.js';
import { backoffDelay } from './backoff.js';
import { createUpstreamTransport, describeTransport } from './transport.js';

export type UpstreamState = 'idle' | 'connecting' | 'ready' | 'backoff' | 'closed';

/** Who caused an upstream request: used to route request-related notifications back. */
export interface RequestOrigin {
  sessionId: string;
  /** Delivers a notification related to the originating downstream request. */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** The downstream request itself (shown to upstream-call middleware). */
  context?: RequestContext;
}

export interface UpstreamRequestOptions {
  signal?: AbortSignal;
  origin?: RequestOrigin;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

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

const GATEWAY_INFO = { name: 'switchyard', version: CORE_VERSION };

/**
 * Results are relayed, not consumed: the gateway reads only the few fields it routes on (and checks
 * those itself), and the downstream client validates what it receives. Skipping the SDK's per-method
 * result schema keeps a full schema parse off every hop.
 */
const PASS_THROUGH: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'switchyard',
    validate: (value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'result must be an object' }] },
  },
};

/**
 * One upstream MCP server: connects (spawning it for stdio), learns its capabilities, keeps reconnecting
 * with backoff while it is down, and runs every request with the configured timeout.
 */
export class UpstreamConnection {
  readonly name: string;
  readonly config: UpstreamConfig;
  #state = 'idle' as UpstreamState;
  #client: Client | undefined;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastError: unknown;
  #inflight = new Set<RequestOrigin>();
  /** The era learned at the first connection; later connections skip the probe. */
  #prior: PriorDiscovery | undefined;
  /** Modern upstreams: one listen stream per subscribed URI (legacy ones use resources/subscribe). */
  readonly #listens = new Map<string, McpSubscription | undefined>();
  readonly #log: Logger;
  readonly #listener: UpstreamListener;

  readonly #around: readonly UpstreamCallMiddleware[];
  readonly #telemetry: GatewayTelemetry | undefined;

  constructor(
    config: UpstreamConfig,
    listener: UpstreamListener,
    logger: Logger,
    around: readonly UpstreamCallMiddleware[] = [],
    telemetry?: GatewayTelemetry,
  ) {
    this.name = config.name;
    this.config = config;
    this.#listener = listener;
    this.#log = logger.child(config.name);
    this.#around = around;
    this.#telemetry = telemetry;
  }

  get state(): UpstreamState {
    return this.#state;
  }

  /** Re-reads the state (after an await, close() may have run). */
  #isClosed(): boolean {
    return this.#state === 'closed';
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.#client?.getServerCapabilities();
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

  get lastError(): unknown {
    return this.#lastError;
  }

  start(): void {
    if (this.#state !== 'idle') return;
    void this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'connecting';
    this.#attempt += 1;
    const { transport, stderr } = createUpstreamTransport(this.config.transport);
    if (stderr) pipeLines(stderr, (line) => this.#log.info(line, { stream: 'stderr' }));
    const client = new Client(GATEWAY_INFO, {
      capabilities: {},
      // Probe server/discover and speak modern to modern servers; anything else falls back to the
      // legacy handshake. A silent stdio server counts as legacy after a short probe timeout.
      versionNegotiation: {
        mode: 'auto',
        probe: { timeoutMs: Math.min(this.config.timeoutMs, PROBE_TIMEOUT_MS) },
      },
    });
    client.setNotificationHandler('notifications/resources/updated', (n) => this.#notify(n.method, n.params));
    client.setNotificationHandler('notifications/resources/list_changed', (n) =>
      this.#notify(n.method, n.params),
    );
    client.setNotificationHandler('notifications/message', (n) => this.#notify(n.method, n.params));
    client.onerror = (error) => this.#log.debug('transport error', { error: error.message });
    try {
      await client.connect(transport, { timeout: this.config.timeoutMs, prior: this.#prior });
    } catch (error) {
      this.#lastError = error;
      await client.close().catch(() => {});
      if (this.#isClosed()) return;
      this.#listener.failed(this, error);
      this.#scheduleReconnect(
        `failed to connect (${describeTransport(this.config.transport)}): ${errorText(error)}`,
      );
      return;
    }
    if (this.#isClosed()) {
      await client.close().catch(() => {});
      return;
    }
    this.#client = client;
    this.#state = 'ready';
    const discover = client.getDiscoverResult();
    this.#prior =
      client.getProtocolEra() === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
    this.#attempt = 0;
    this.#lastError = undefined;
    client.onclose = () => this.#onClosed(client);
    const info = client.getServerVersion();
    this.#log.info('connected', {
      server: info ? `${info.name}@${info.version}` : undefined,
      protocol: client.getNegotiatedProtocolVersion(),
      era: client.getProtocolEra(),
    });
    if (client.getProtocolEra() === 'modern' && client.getServerCapabilities()?.resources?.listChanged) {
      this.#openChangeStream(client);
    }
    this.#listener.ready(this);
  }

  /**
   * A modern upstream announces list changes only on a listen stream that asks for them: keep one open
   * for the life of the connection (re-opened if it drops), so its list_changed reaches the gateway.
   */
  #openChangeStream(client: Client): void {
    client
      .listen({ resourcesListChanged: true }, { timeout: this.config.timeoutMs })
      .then((subscription) => {
        if (this.#client !== client) {
          void subscription.close();
          return;
        }
        void subscription.closed.then((how) => {
          if (how === 'local' || this.#client !== client || this.#state !== 'ready') return;
          this.#log.debug('list-change stream ended; re-opening', { how });
          setTimeout(() => {
            if (this.#client === client && this.#state === 'ready') this.#openChangeStream(client);
          }, STREAM_REOPEN_MS).unref();
        });
      })
      .catch((error) => this.#log.warn('could not open the list-change stream', { error: errorText(error) }));
  }

  #onClosed(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    if (this.#state === 'closed') return;
    const error = new Error('connection closed');
    this.#lastError = error;
    // Not ready any more before anyone hears of it (listeners may ask, e.g. a plugin's canSubscribe).
    this.#state = 'backoff';
    this.#listener.down(this, error);
    this.#scheduleReconnect('connection lost');
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
    this.#lastError = error;
    this.#state = 'backoff';
    this.#listener.down(this, error);
    void client.close().catch(() => {});
    this.#scheduleReconnect(`request failed: ${errorText(error)}`);
  }

  #notify(method: string, params: unknown): void {
    const p = (params ?? {}) as Record<string, unknown>;
    this.#listener.notification(this, method, p, [...this.#inflight]);
  }

  /**
   * Sends one request upstream. Resolves with the raw result or rejects with a GatewayError: the
   * upstream's own JSON-RPC error, `upstream_timeout` (after cancelling upstream) or `upstream_unavailable`.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const telemetry = this.#telemetry;
    return telemetry
      ? telemetry.upstreamCall(this.name, method, () => this.#through(method, params, options))
      : this.#through(method, params, options);
  }

  /** Upstream-call middleware (plugins): the first is outermost, the innermost step sends. */
  #through(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions,
  ): Promise<Record<string, unknown>> {
    if (this.#around.length === 0) return this.#send(method, params, options);
    const step = (i: number, p: Record<string, unknown> | undefined): Promise<Record<string, unknown>> => {
      const layer = this.#around[i];
      if (!layer) return this.#send(method, p, options);
      const call = { upstream: this.name, method, params: p, request: options.origin?.context };
      return layer(call, (override) => step(i + 1, override ?? p));
    };
    return step(0, params);
  }

  async #send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions,
  ): Promise<Record<string, unknown>> {
    const client = this.#client;
    if (!client || this.#state !== 'ready') {
      throw GatewayError.upstreamUnavailable(
        this.name,
        this.#state === 'closed' ? 'gateway shutting down' : describeDown(this.#lastError),
      );
    }
    const origin = options.origin;
    if (origin) this.#inflight.add(origin);
    try {
      const result = await client.request({ method, params } as never, PASS_THROUGH, {
        timeout: this.config.timeoutMs,
        signal: options.signal,
        onprogress: options.onProgress,
      });
      return withoutEnvelope(result as Record<string, unknown>);
    } catch (error) {
      throw this.#mapError(error, method, options.signal);
    } finally {
      if (origin) this.#inflight.delete(origin);
    }
  }

  /**
   * Subscribes to `uri` upstream: `resources/subscribe` on a legacy server, a `subscriptions/listen`
   * stream (re-opened if it drops) on a modern one. Updates arrive as notifications either way.
   */
  async subscribe(uri: string, options: UpstreamRequestOptions = {}): Promise<void> {
    if (this.era !== 'modern') {
      await this.request('resources/subscribe', { uri }, options);
      return;
    }
    this.#listens.set(uri, undefined);
    try {
      await this.#listen(uri);
    } catch (error) {
      this.#listens.delete(uri);
      throw error;
    }
  }

  async unsubscribe(uri: string, options: UpstreamRequestOptions = {}): Promise<void> {
    if (this.#listens.has(uri)) {
      const subscription = this.#listens.get(uri);
      this.#listens.delete(uri);
      await subscription?.close();
      return;
    }
    await this.request('resources/unsubscribe', { uri }, options);
  }

  async #listen(uri: string): Promise<void> {
    const client = this.#client;
    if (!client || this.#state !== 'ready')
      throw GatewayError.upstreamUnavailable(this.name, describeDown(this.#lastError));
    let subscription: McpSubscription;
    try {
      subscription = await client.listen(
        { resourceSubscriptions: [uri] },
        { timeout: this.config.timeoutMs },
      );
    } catch (error) {
      throw this.#mapError(error, 'subscriptions/listen', undefined);
    }
    if (!subscription.honoredFilter.resourceSubscriptions?.includes(uri)) {
      await subscription.close();
      throw GatewayError.invalidParams(`Upstream '${this.name}' did not accept a subscription to ${uri}.`, {
        upstream: this.name,
      });
    }
    if (!this.#listens.has(uri)) {
      await subscription.close(); // unsubscribed while the stream was opening
      return;
    }
    this.#listens.set(uri, subscription);
    void subscription.closed.then((how) => {
      if (how === 'local' || this.#listens.get(uri) !== subscription) return;
      // The stream dropped while still wanted: open it again (a dead connection is handled by reconnect).
      this.#listens.set(uri, undefined);
      if (this.#client !== client || this.#state !== 'ready') return;
      this.#log.debug('listen stream ended; re-opening', { uri, how });
      setTimeout(() => {
        if (this.#client !== client || !this.#listens.has(uri) || this.#listens.get(uri) !== undefined)
          return;
        this.#listen(uri).then(
          // Updates sent while the stream was down are lost: say the resource may have changed.
          () => this.#notify('notifications/resources/updated', { uri }),
          (error) => this.#log.warn('could not re-open a listen stream', { uri, error: errorText(error) }),
        );
      }, STREAM_REOPEN_MS).unref();
    });
  }

  #mapError(error: unknown, method: string, signal: AbortSignal | undefined): GatewayError {
    if (error instanceof GatewayError) return error;
    if (signal?.aborted) return GatewayError.cancelled(method);
    if (error instanceof ProtocolError) return GatewayError.fromUnknown(error, this.name);
    if (error instanceof SdkError) {
      if (error.code === SdkErrorCode.RequestTimeout) {
        return GatewayError.upstreamTimeout(this.name, method, this.config.timeoutMs);
      }
      if (error.code === SdkErrorCode.CapabilityNotSupported) {
        return GatewayError.invalidParams(`Upstream '${this.name}' does not support ${method}.`, {
          upstream: this.name,
        });
      }
      if (this.config.transport.kind !== 'stdio') this.#markBroken(error);
      return GatewayError.upstreamUnavailable(this.name, error.message, error);
    }
    if (this.config.transport.kind !== 'stdio') this.#markBroken(error);
    return GatewayError.upstreamUnavailable(this.name, errorText(error), error);
  }

  async close(): Promise<void> {
    this.#state = 'closed';
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    this.#client = undefined;
    if (client) await client.close().catch(() => {});
  }
}

const PROBE_TIMEOUT_MS = 10_000;
/** Pause before re-opening a listen stream that ended, so a server that ends them at once is not hammered. */
const STREAM_REOPEN_MS = 500;
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

/** Drops the upstream's reserved `_meta` envelope keys (its serverInfo etc.): the gateway is the server downstream. */
function withoutEnvelope(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta;
  if (typeof meta !== 'object' || meta === null) return result;
  const keys = Object.keys(meta);
  if (!keys.some((k) => k.startsWith(ENVELOPE_PREFIX))) return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith(ENVELOPE_PREFIX)));
  const copy = { ...result };
  if (Object.keys(kept).length > 0) copy._meta = kept;
  else delete copy._meta;
  return copy;
}

function describeDown(error: unknown): string {
  return error === undefined ? 'not connected yet' : `last error: ${errorText(error)}`;
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== error.message
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
}

function pipeLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding?.('utf8');
  stream.on('data', (chunk: string | Buffer) => {
    buffered += chunk.toString();
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl).replace(/\r$/, '');
      if (line.length > 0) onLine(line);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
    }
    if (buffered.length > 16_384) {
      onLine(buffered);
      buffered = '';
    }
  });
  stream.on('end', () => {
    if (buffered.length > 0) onLine(buffered);
  });
  stream.on('error', () => {});
}
