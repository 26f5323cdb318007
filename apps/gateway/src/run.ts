import { ClientDirectory, createLogger, Gateway, type Logger, type LogLevel } from '@switchyard/core';
import { createAuthenticator } from './auth/authenticator.js';
import type { GatewayConfig } from './config/load.js';
import { type HttpListener, startHttpListener } from './listeners/http.js';
import { startStdioListener } from './listeners/stdio.js';
import { startWsListener, type WsListener } from './listeners/ws.js';
import { loadPlugins } from './plugins.js';
import { startTelemetry } from './telemetry.js';

export interface RunningGateway {
  gateway: Gateway;
  http?: HttpListener;
  ws?: WsListener;
  /** Resolves when the stdio client disconnects (stdio mode only). */
  stdioClosed?: Promise<void>;
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
  let http: HttpListener | undefined;
  let ws: WsListener | undefined;
  let stdio: Awaited<ReturnType<typeof startStdioListener>> | undefined;
  try {
    if (config.listen.http) http = await startHttpListener(gateway, config.listen.http, logger, auth);
    if (config.listen.ws) ws = await startWsListener(gateway, config.listen.ws, logger, auth);
    if (config.listen.stdio) stdio = await startStdioListener(gateway, logger, clients.anonymous);
  } catch (error) {
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
  let closing: Promise<void> | undefined;
  return {
    gateway,
    http,
    ws,
    stdioClosed: stdio?.closed,
    close: () => {
      closing ??= (async () => {
        await stdio?.close().catch(() => {});
        await ws?.close();
        await http?.close();
        await gateway.close();
        auth.close();
        await telemetry.close();
      })();
      return closing;
    },
  };
}
