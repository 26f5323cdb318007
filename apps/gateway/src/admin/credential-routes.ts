import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, type Identity, type Logger, StoreUnavailableError } from '@switchyard/core';
import { credentialOwner } from '@switchyard/core/listener';
import type { UserCredentials } from '../credentials/user-credentials.js';
import { sendJson } from '../listeners/http-io.js';

/**
 * `/admin/credentials` (DESIGN §14): any identity the gateway knows sees and manages its own personal
 * upstreams, never anyone else's: credentials are kept per kind of identity too (`credentialOwner`), so an
 * OAuth `sub` "alice" never reaches the static client `alice`'s, nor a `sub` "anonymous" the local user's. `GET /admin/credentials` lists them; `POST /admin/credentials/<server>`
 * mints a connect link (the status page's Connect); `DELETE /admin/credentials/<server>` disconnects
 * (revoking at the authorization server where it can).
 */
export async function serveCredentialRoute(options: {
  credentials: UserCredentials | undefined;
  req: IncomingMessage;
  res: ServerResponse;
  /** The path below `/admin/`: `credentials` or `credentials/<server>`. */
  path: string;
  /** The caller, any known identity; else answers the refusal and gives undefined. */
  identify: () => Promise<Identity | undefined>;
  log: Logger;
}): Promise<void> {
  const { credentials, req, res, path, log } = options;
  req.resume();
  res.setHeader('cache-control', 'no-store');
  const server = path === 'credentials' ? undefined : serverOf(path.slice('credentials/'.length));
  if (server === null) return sendJson(res, 404, { error: `Not found: /admin/${path}` });
  const allowed = server === undefined ? ['GET', 'HEAD'] : ['POST', 'DELETE'];
  if (!allowed.includes(req.method ?? '')) {
    res.setHeader('Allow', allowed.join(', '));
    return sendJson(res, 405, { error: `Method ${req.method} not allowed` });
  }
  const identity = await options.identify();
  if (identity === undefined) return;
  try {
    await answer(credentials, server, identity, req.method, res, log);
  } catch (error) {
    const storeDown =
      error instanceof StoreUnavailableError ||
      (error instanceof GatewayError && error.reason === 'store_unavailable');
    if (!storeDown) throw error;
    sendJson(res, 503, {
      error: 'The credentials vault (the shared store) does not answer: retry shortly',
      reason: 'store_unavailable',
    });
  }
}

async function answer(
  credentials: UserCredentials | undefined,
  server: string | undefined,
  identity: Identity,
  method: string | undefined,
  res: ServerResponse,
  log: Logger,
): Promise<void> {
  if (server === undefined) {
    return sendJson(res, 200, { credentials: credentials ? await credentials.list(identity) : [] });
  }
  if (!credentials?.isPersonal(server)) {
    return sendJson(res, 404, { error: `No upstream '${server}' that connects each person's own account` });
  }
  if (method === 'POST') {
    return sendJson(res, 200, { server, url: await credentials.connectUrl(identity, server) });
  }
  const disconnected = await credentials.disconnect(identity, server);
  log.info('personal credential disconnect', {
    identity: credentialOwner(identity),
    upstream: server,
    disconnected,
  });
  return sendJson(res, 200, { server, connected: false, disconnected });
}

/** The upstream name in a path segment; null when it is no single, decodable segment. */
function serverOf(segment: string): string | null {
  try {
    const name = decodeURIComponent(segment);
    return name.length > 0 && !name.includes('/') ? name : null;
  } catch {
    return null;
  }
}
