import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  CORE_VERSION,
  DEFAULT_ANONYMOUS_ID,
  type Gateway,
  type Identity,
  type Logger,
  type Store,
} from '@switchyard/core';
import type { Authenticator } from '../auth/authenticator.js';
import type { AdminListenerConfig } from '../config/schema.js';
import type { UserCredentials } from '../credentials/user-credentials.js';
import { answerClientErrors, header, requestPath, sendJson } from '../listeners/http-io.js';
import { listen } from '../listeners/listen.js';
import { createRequestGuard } from '../listeners/origin.js';
import { type Asset, loadAssets } from './assets.js';
import { serveCredentialRoute } from './credential-routes.js';
import { ALIVE, readiness } from './health.js';
import { LOOPBACK_HOST, openAdminProblem } from './open-admin.js';
import { servePluginRoute } from './plugin-routes.js';
import { collectStatus, type ReloadRecord } from './status.js';

export interface AdminListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface AdminListenerOptions {
  gateway: Gateway;
  config: AdminListenerConfig;
  logger: Logger;
  auth: Authenticator;
  /** Whether any identities are configured (clients or OAuth); without, the loopback listener is open. */
  identities: boolean;
  /** The MCP listeners, for the status page. */
  listeners: () => { kind: string; url: string }[];
  /** Configured listeners that are not serving (e.g. while the gateway drains). */
  listenersDown: () => readonly string[];
  /** Config reloads, newest first. */
  reloads?: () => ReloadRecord[];
  /** The store replicas share, reported in `/readyz` and on the status page when it is shared. */
  store?: Store;
  /** Each person's upstream credentials (`credentials`, DESIGN §14): `/admin/credentials` and `/oauth/`. */
  credentials?: UserCredentials;
  /**
   * Who the local user is on a loopback listener without identities: the stdio sessions' identity
   * (`anonymous`), so the accounts they connect on the status page are the ones their calls use.
   */
  local?: Identity;
}

/** Who calls a loopback admin listener when no identities are configured. */
const LOCAL: Identity = Object.freeze({
  id: DEFAULT_ANONYMOUS_ID,
  groups: Object.freeze([]),
  anonymous: true,
});

/**
 * The admin listener (DESIGN §10): `/healthz` and `/readyz` for probes (no identity, no Host check: a
 * probe may address the pod by IP), and the status page with its JSON at `/admin/status` for callers
 * in one of `groups`. The page's files carry no data; the JSON needs the same identities as MCP.
 */
export async function startAdminListener(options: AdminListenerOptions): Promise<AdminListener> {
  const { gateway, config, auth } = options;
  const log = options.logger.child('admin');
  if (!options.identities && !LOOPBACK_HOST.test(config.host)) {
    throw new Error(`listen.admin ${openAdminProblem(config.host)}`);
  }
  const assets = await loadAssets();
  const guard = createRequestGuard(config);
  const startedAt = Date.now();
  const ready = () => readiness(gateway, options.listenersDown, options.store);

  /**
   * The caller, when it may use the admin endpoints: in one of `listen.admin.groups` or `extraGroups` (a
   * plugin endpoint's own); else answers the refusal and gives undefined. Without configured identities
   * (a loopback listener) everyone may, as the anonymous identity; with them, a caller without a token
   * gets 401 and the challenge even when `anonymous` admits tokenless MCP callers (and names an admin).
   */
  const authorize = async (
    req: IncomingMessage,
    res: ServerResponse,
    extraGroups: readonly string[] = [],
  ): Promise<Identity | undefined> => {
    if (!options.identities) return LOCAL;
    const outcome = await auth.authenticate(header(req, 'authorization'), { anonymous: false });
    if (!outcome.ok) {
      log.warn('admin request refused', { reason: outcome.reason, remote: req.socket.remoteAddress });
      for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
      sendJson(res, outcome.status, { error: outcome.error.message, reason: outcome.reason });
      return undefined;
    }
    const admitted = [...config.groups, ...extraGroups];
    if (outcome.identity.groups.some((g) => admitted.includes(g))) return outcome.identity;
    log.warn('admin request refused', { reason: 'forbidden', identity: outcome.identity.id });
    sendJson(res, 403, {
      error: `Forbidden: ${outcome.identity.id} is in none of the admin groups (${admitted.join(', ')})`,
      reason: 'forbidden',
    });
    return undefined;
  };

  /**
   * The caller as any identity the gateway knows, admin or not (their own credentials); an anonymous
   * caller only on a loopback listener without identities (the local user).
   */
  const identify = async (req: IncomingMessage, res: ServerResponse): Promise<Identity | undefined> => {
    if (!options.identities) return options.local ?? LOCAL;
    const outcome = await auth.authenticate(header(req, 'authorization'));
    if (outcome.ok && !outcome.identity.anonymous) return outcome.identity;
    if (!outcome.ok) {
      for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
      sendJson(res, outcome.status, { error: outcome.error.message, reason: outcome.reason });
      return undefined;
    }
    sendJson(res, 401, { error: 'Sign in: your own credentials need your client token or OAuth sign-in' });
    return undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req) ?? req.url ?? '';
    const readOnly = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/healthz' || path === '/readyz') {
      req.resume();
      if (!readOnly) return notAllowed(res, req.method);
      if (path === '/healthz') return sendJson(res, 200, ALIVE);
      const r = ready();
      return sendJson(res, r.ready ? 200 : 503, r.body);
    }
    const refused = guard(req);
    if (refused) {
      req.resume();
      log.warn('request refused', { reason: refused, origin: req.headers.origin, host: req.headers.host });
      return sendJson(res, 403, { error: `Forbidden: ${refused}` });
    }
    // The connect links and the OAuth callback (when browsers reach the gateway here: `publicUrl`).
    if (options.credentials?.routes(req, res)) return;
    const asset = readOnly ? assets.get(path) : undefined;
    if (asset) {
      req.resume();
      return sendAsset(req, res, asset);
    }
    if (path === '/admin/credentials' || path.startsWith('/admin/credentials/')) {
      return serveCredentialRoute({
        credentials: options.credentials,
        req,
        res,
        path: path.slice('/admin/'.length),
        identify: () => identify(req, res),
        log,
      });
    }
    if (path !== '/admin/status' && path.startsWith('/admin/')) {
      return servePluginRoute({
        gateway,
        req,
        res,
        path: path.slice('/admin/'.length),
        authorize: (groups) => authorize(req, res, groups),
        isAdmin: (identity) => !options.identities || identity.groups.some((g) => config.groups.includes(g)),
        log,
      });
    }
    req.resume();
    if (path !== '/admin/status') return sendJson(res, 404, { error: `Not found: ${path}` });
    if (!readOnly) return notAllowed(res, req.method);
    if (!(await authorize(req, res))) return;
    res.setHeader('cache-control', 'no-store');
    const status = collectStatus({
      gateway,
      version: CORE_VERSION,
      startedAt,
      listeners: options.listeners,
      readiness: ready,
      reloads: options.reloads ?? (() => []),
    });
    return sendJson(res, 200, status);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log.error('request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal error' });
      else res.end();
    });
  });
  answerClientErrors(server, (_, message) => ({ error: message }));
  const { port, url } = await listen(server, { ...config, path: '/' }, 'http');
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function notAllowed(res: ServerResponse, method: string | undefined): void {
  res.setHeader('Allow', 'GET, HEAD');
  sendJson(res, 405, { error: `Method ${method} not allowed` });
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset): void {
  res.writeHead(200, {
    'content-type': asset.type,
    'content-length': asset.body.length,
    'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'",
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
