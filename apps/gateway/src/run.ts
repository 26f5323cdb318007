import { ClientDirectory, createLogger, Gateway, type Logger, type LogLevel } from '@switchyard/core';
import { type AdminListener, startAdminListener } from './admin/listener.js';
import { createAuthenticator } from './auth/authenticator.js';
import type { GatewayConfig } from './config/load.js';
import { Drain } from './listeners/drain.js';
import { type HttpListener, startHttpListener } from './listeners/http.js';
import { DEFAULT_LIMITS, SessionQuota } from './listeners/limits.js';
import { startStdioListener } from './listeners/stdio.js';
import { startWsListener, type WsListener } from './listeners/ws.js';
import { loadPlugins } from './plugins.js';
import { startTelemetry } from './telemetry.js';

export interface RunningGateway {
  gateway: Gateway;
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
  close(): Promise<void>;
}

/** Starts the gateway described by `config`: connects upstreams, then opens the configured listeners. */
export async function runGateway(
  config: GatewayConfig,
  options: { logger?: Logger; logLevel?: LogLevel } = {},
): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger({ level: options.logLevel ?? config.logLevel ?? 'info' });
  // Telemetry providers must exist before the gateway and plugins create their instruments.
  const telemetry = await startTelemetry(config.telemetry, logger);
  const clients = new ClientDirectory({ clients: config.clients, anonymous: config.anonymous });
  let plugins: Awaited<ReturnType<typeof loadPlugins>>;
  try {
    plugins = await loadPlugins(config, logger);
  } catch (error) {
    await telemetry.close();
    throw error;
  }
  // Starts discovering the OAuth issuer in the background: an unreachable issuer does not hold the start.
  const auth = createAuthenticator({
    clients,
    anonymousAllowed: config.anonymous !== undefined,
    oauth: config.auth?.oauth,
    logger,
  });
  const gateway = new Gateway({
    upstreams: config.upstreams,
    plugins,
    logger,
    cursorSecret: config.cursorSecret,
  });
  logger.info('starting', {
    config: config.source,
    upstreams: config.upstreams.map((u) => u.name).join(','),
    clients: clients.enabled ? Object.keys(config.clients ?? {}).length : undefined,
    oauthIssuer: config.auth?.oauth?.issuer,
    oauthResource: config.auth?.oauth?.resource,
  });
  await gateway.start();
  const down = gateway.status().filter((s) => s.state !== 'ready');
  if (down.length > 0) {
    logger.warn('some upstreams are not connected yet; serving the others and retrying in the background', {
      upstreams: down.map((s) => s.name).join(','),
    });
  }
  const limits = config.limits ?? { ...DEFAULT_LIMITS };
  const shared = { limits, quota: new SessionQuota(limits), drain: new Drain() };
  let http: HttpListener | undefined;
  let ws: WsListener | undefined;
  let stdio: Awaited<ReturnType<typeof startStdioListener>> | undefined;
  let admin: AdminListener | undefined;
  /** Set once close() starts: /readyz then reports the MCP listeners as down (as it does while draining). */
  let stopping = false;
  try {
    if (config.listen.http) http = await startHttpListener(gateway, config.listen.http, logger, auth, shared);
    if (config.listen.ws) ws = await startWsListener(gateway, config.listen.ws, logger, auth, shared);
    if (config.listen.stdio) stdio = await startStdioListener(gateway, logger, clients.anonymous);
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
        identities: clients.enabled || config.auth?.oauth !== undefined,
        listeners: mcp,
        listenersDown: () => (stopping || shared.drain.draining ? mcp().map((l) => l.kind) : []),
      });
    }
  } catch (error) {
    await admin?.close();
    await ws?.close();
    await http?.close();
    await gateway.close();
    auth.close();
    await telemetry.close();
    throw error;
  }
  // Announced only once every listener is up: whoever waits for any of these lines can use them all.
  if (http) logger.info(`listening on ${http.url}`);
  if (ws) logger.info(`listening on ${ws.url}`);
  if (stdio) logger.info('serving MCP on stdio');
  if (admin) logger.info(`admin listening on ${admin.url}`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopping = true;
      await stdio?.close().catch(() => {});
      await ws?.close();
      await http?.close();
      await gateway.close();
      await admin?.close();
      auth.close();
      await telemetry.close();
    })();
    return closing;
  };
  return {
    gateway,
    http,
    ws,
    admin,
    stdioClosed: stdio?.closed,
    drain: async (graceMs = config.shutdownGraceMs ?? 10_000) => {
      const inFlight = shared.drain.inFlight;
      if (inFlight > 0)
        logger.info('draining: waiting for requests in flight', { requests: inFlight, graceMs });
      const left = await shared.drain.begin(graceMs);
      if (left > 0)
        logger.warn('grace period over: closing with requests still in flight', { requests: left });
      await close();
      return left;
    },
    close,
  };
}
