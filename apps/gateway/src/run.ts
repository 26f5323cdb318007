import { createLogger, Gateway, type Logger, type LogLevel, openStore, type Store } from '@switchyard/core';
import { ClientDirectory } from '@switchyard/core/listener';
import { type AdminListener, startAdminListener } from './admin/listener.js';
import { identitiesConfigured } from './admin/open-admin.js';
import type { ReloadRecord } from './admin/status.js';
import { createAuthenticator } from './auth/authenticator.js';
import { LiveAuthenticator } from './auth/live-authenticator.js';
import type { GatewayConfig } from './config/load.js';
import { UserCredentials } from './credentials/user-credentials.js';
import { Drain } from './listeners/drain.js';
import { type HttpListener, startHttpListener } from './listeners/http.js';
import { DEFAULT_LIMITS, SessionQuota } from './listeners/limits.js';
import { startStdioListener } from './listeners/stdio.js';
import { startWsListener, type WsListener } from './listeners/ws.js';
import { loadPlugins } from './plugins.js';
import { ConfigReloader } from './reload/apply.js';
import { armReloads } from './reload/early.js';
import { startTelemetry } from './telemetry.js';

export interface RunningGateway {
  gateway: Gateway;
  /** The store replicas share state through (in memory without `store.redis`). */
  store: Store;
  http?: HttpListener;
  ws?: WsListener;
  admin?: AdminListener;
  /** Resolves when the stdio client disconnects (stdio mode only). */
  stdioClosed?: Promise<void>;
  /**
   * SIGTERM: refuses new sessions and requests (`shutting_down`), waits up to `graceMs` for the requests
   * in flight, then closes everything. Resolves with how many requests were still running (0 = none).
   */
  drain(graceMs?: number): Promise<number>;
  /** Re-reads the config file and applies what changed (what SIGHUP and a change of the file do). */
  reload(trigger?: string): Promise<ReloadRecord>;
  close(): Promise<void>;
}

/** What runGateway rejects with when `stop` aborted the start: everything it had started is closed. */
export class StartAborted extends Error {
  constructor() {
    super('stopped while starting');
    this.name = 'StartAborted';
  }
}

/** Resolves when `work` does, or as soon as `signal` aborts (whatever `work` does later is moot). */
function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return work;
  return new Promise((resolve, reject) => {
    const abort = () => resolve();
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Starts the gateway described by `config`: connects upstreams, then opens the configured listeners. */
export async function runGateway(
  config: GatewayConfig,
  options: {
    logger?: Logger;
    logLevel?: LogLevel;
    /** Reload on SIGHUP and when the config file changes (DESIGN §10); the CLI sets it for --config. */
    watch?: boolean;
    /**
     * Aborting it while the upstreams are still connecting (up to their timeoutMs) stops the start: every
     * upstream is closed (spawned servers stopped, those still in their handshake too) and runGateway
     * rejects with StartAborted. Once the listeners open, stopping is the caller's (drain or close).
     */
    stop?: AbortSignal;
    /** Serve stdio as this virtual server (`--virtual-server`, DESIGN §13) instead of the root endpoint. */
    virtualServer?: string;
  } = {},
): Promise<RunningGateway> {
  if (options.virtualServer !== undefined && !config.virtualServers?.has(options.virtualServer)) {
    const known = [...(config.virtualServers?.keys() ?? [])];
    throw new Error(
      `--virtual-server ${options.virtualServer}: ${config.source} has no virtual server of that name (${known.length > 0 ? `it has ${known.join(', ')}` : 'it defines no "virtualServers"'})`,
    );
  }
  const logger = options.logger ?? createLogger({ level: options.logLevel ?? config.logLevel ?? 'info' });
  // Armed first: what comes while the upstreams connect is applied once the gateway serves.
  const reloads = options.watch ? armReloads(config.source, logger) : undefined;
  // Telemetry providers must exist before the gateway and plugins create their instruments.
  const telemetry = await startTelemetry(config.telemetry, logger);
  const clients = new ClientDirectory({ clients: config.clients, anonymous: config.anonymous });
  if (config.store?.redis && config.cursorSecret === undefined)
    logger.warn(
      'store.redis is set without cursorSecret: cursors, requestState, task ids and sessions minted by one replica are refused by the others, and what replicas publish to each other is not signed; give every replica the same cursorSecret',
    );
  const store = await openStore(config.store, logger, config.cursorSecret);
  let plugins: Awaited<ReturnType<typeof loadPlugins>>;
  try {
    plugins = await loadPlugins(config, logger, store);
  } catch (error) {
    reloads?.close();
    await store.dispose();
    await telemetry.close();
    throw error;
  }
  // Starts discovering the OAuth issuer in the background: an unreachable issuer does not hold the start.
  const auth = new LiveAuthenticator(
    createAuthenticator({
      clients,
      anonymousAllowed: config.anonymous !== undefined,
      oauth: config.auth?.oauth,
      logger,
    }),
  );
  // Each person's upstream credentials (DESIGN §14), in the store every replica shares.
  let credentials: UserCredentials | undefined;
  try {
    credentials = await UserCredentials.open(config.credentials, config.upstreams, store, logger);
  } catch (error) {
    reloads?.close();
    await store.dispose();
    await telemetry.close();
    throw error;
  }
  // A copy the listeners and the gateway read, and a reload updates in place.
  const limits = { ...DEFAULT_LIMITS, ...config.limits };
  const gateway = new Gateway({
    upstreams: config.upstreams,
    plugins,
    logger,
    cursorSecret: config.cursorSecret,
    limits,
    virtualServers: config.virtualServers,
    toolSearch: config.toolSearch,
    personalCredentials: credentials,
  });
  logger.info('starting', {
    config: config.source,
    upstreams: config.upstreams.map((u) => u.name).join(','),
    clients: clients.enabled ? Object.keys(config.clients ?? {}).length : undefined,
    oauthIssuer: config.auth?.oauth?.issuer,
    oauthResource: config.auth?.oauth?.resource,
  });
  await untilAborted(gateway.start(), options.stop);
  if (options.stop?.aborted) {
    reloads?.close();
    await gateway.close();
    await credentials?.close();
    await store.dispose();
    auth.close();
    await telemetry.close();
    throw new StartAborted();
  }
  const down = gateway.status().filter((s) => s.state !== 'ready' && s.state !== 'personal');
  if (down.length > 0) {
    logger.warn('some upstreams are not connected yet; serving the others and retrying in the background', {
      upstreams: down.map((s) => s.name).join(','),
    });
  }
  let http: HttpListener | undefined;
  let ws: WsListener | undefined;
  const reloader = new ConfigReloader(config.source, config, {
    gateway,
    auth,
    limits,
    plugins,
    store,
    logger,
    credentials,
    onEndpoints: async () => {
      ws?.retainEndpoints();
      await http?.retainEndpoints();
    },
  });
  const shared = { limits, quota: new SessionQuota(limits), drain: new Drain() };
  let stdio: Awaited<ReturnType<typeof startStdioListener>> | undefined;
  let admin: AdminListener | undefined;
  /** Set once close() starts: /readyz then reports the MCP listeners as down (as it does while draining). */
  let stopping = false;
  try {
    if (config.listen.http)
      http = await startHttpListener(gateway, config.listen.http, logger, auth, shared, {
        store,
        secret: config.cursorSecret,
        routes: credentials?.routes,
      });
    if (config.listen.ws) ws = await startWsListener(gateway, config.listen.ws, logger, auth, shared);
    if (config.listen.stdio)
      stdio = await startStdioListener(gateway, logger, clients.anonymous, shared, options.virtualServer);
    if (config.listen.admin) {
      const mcp = () => [
        ...(http ? [{ kind: 'http', url: http.url }] : []),
        ...(ws ? [{ kind: 'ws', url: ws.url }] : []),
        ...(stdio ? [{ kind: 'stdio', url: 'stdio' }] : []),
      ];
      admin = await startAdminListener({
        gateway,
        config: config.listen.admin,
        logger,
        auth,
        identities: identitiesConfigured(config),
        listeners: mcp,
        listenersDown: () => (stopping || shared.drain.draining ? mcp().map((l) => l.kind) : []),
        reloads: () => reloader.history,
        store,
        credentials,
        local: clients.anonymous,
      });
    }
  } catch (error) {
    reloads?.close();
    await admin?.close();
    await ws?.close();
    await http?.close();
    await gateway.close();
    await credentials?.close();
    await store.dispose();
    auth.close();
    await telemetry.close();
    throw error;
  }
  // Announced only once every listener is up: whoever waits for any of these lines can use them all.
  if (http) logger.info(`listening on ${http.url}`);
  if (ws) logger.info(`listening on ${ws.url}`);
  if (stdio) logger.info('serving MCP on stdio');
  if (admin) logger.info(`admin listening on ${admin.url}`);
  reloads?.attach((trigger) => reloader.reload(trigger));
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopping = true;
      reloads?.close();
      reloader.close();
      await stdio?.close().catch(() => {});
      await ws?.close();
      await http?.close();
      await gateway.close();
      await credentials?.close();
      await store.dispose();
      await admin?.close();
      auth.close();
      await telemetry.close();
    })();
    return closing;
  };
  return {
    gateway,
    store,
    http,
    ws,
    admin,
    stdioClosed: stdio?.closed,
    drain: async (graceMs = reloader.config.shutdownGraceMs ?? 10_000) => {
      const inFlight = shared.drain.inFlight;
      if (inFlight > 0)
        logger.info('draining: waiting for requests in flight', { requests: inFlight, graceMs });
      const left = await shared.drain.begin(graceMs);
      if (left > 0)
        logger.warn('grace period over: closing with requests still in flight', { requests: left });
      await close();
      return left;
    },
    reload: (trigger = 'request') => reloader.reload(trigger),
    close,
  };
}
