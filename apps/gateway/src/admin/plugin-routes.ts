import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FoundAdminRoute, Gateway, Identity, Logger, PluginAdminRequest } from '@switchyard/core';
import { DEFAULT_MAX_JSON_DEPTH, jsonTextTooDeep } from '@switchyard/core/listener';
import { BodyTooLarge, readBody, sendJson } from '../listeners/http-io.js';

/** The largest body a plugin's admin endpoint reads (an approval decision, a name: small JSON). */
export const MAX_ADMIN_BODY_BYTES = 64 * 1024;

/**
 * Serves the plugins' own admin endpoints (`admin.routes`) below `/admin/`: finds the route, admits the
 * caller when `authorize` does (the admin groups and the route's own), reads a JSON body for POST, and
 * writes what the plugin answers as JSON. An unknown path is 404, a known path with another method 405.
 */
export async function servePluginRoute(options: {
  gateway: Gateway;
  req: IncomingMessage;
  res: ServerResponse;
  /** The path below `/admin/`. */
  path: string;
  authorize: (extraGroups: readonly string[]) => Promise<Identity | undefined>;
  /** Whether an admitted caller is an admin, not only in the route's own groups. */
  isAdmin: (identity: Identity) => boolean;
  log: Logger;
}): Promise<void> {
  const { gateway, req, res, path, log } = options;
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  const { found, methods } = gateway.pluginAdminRoute(method, path);
  if (!found) {
    req.resume();
    if (methods.length === 0) return sendJson(res, 404, { error: `Not found: /admin/${path}` });
    res.setHeader('Allow', [...new Set(methods)].join(', '));
    return sendJson(res, 405, { error: `Method ${req.method} not allowed` });
  }
  const identity = await options.authorize(found.route.groups?.() ?? []);
  if (!identity) return void req.resume();
  let body: unknown;
  try {
    body = await readJsonBody(req);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      return sendJson(res, 413, { error: `Body too large: at most ${MAX_ADMIN_BODY_BYTES} bytes` });
    }
    return sendJson(res, 400, { error: `Bad Request: the body is not JSON (${(error as Error).message})` });
  }
  const answer = await run(
    found,
    { identity, admin: options.isAdmin(identity), params: found.params, body },
    log,
  );
  res.setHeader('cache-control', 'no-store');
  sendJson(res, answer.status ?? 200, answer.body);
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (req.method !== 'POST') {
    req.resume();
    return undefined;
  }
  const raw = await readBody(req, MAX_ADMIN_BODY_BYTES);
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (jsonTextTooDeep(text, DEFAULT_MAX_JSON_DEPTH)) throw new Error('it nests too deep');
  return JSON.parse(text);
}

async function run(found: FoundAdminRoute, request: PluginAdminRequest, log: Logger) {
  try {
    return await found.route.handle(request);
  } catch (error) {
    log.error('plugin admin endpoint failed', {
      plugin: found.plugin,
      route: `${found.route.method} ${found.route.path}`,
      error: error instanceof Error ? error.message : String(error),
    });
    return { status: 500, body: { error: 'Internal error' } };
  }
}
