import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { Gateway, Identity, Logger, Store } from '@switchyard/core';
import {
  type ClientDirectory,
  checkEnvelope,
  errorResponse,
  GatewayReplica,
  jsonTextTooDeep,
} from '@switchyard/core/listener';
import { type Authenticator, asAuthenticator, refreshSubjectToken } from '../auth/authenticator.js';
import type { ListenerConfig } from '../config/load.js';
import { advertisedUrl } from '../replicas/advertise.js';
import { ReplicaSessions } from '../replicas/replica-sessions.js';
import { initializeParams } from '../replicas/session-ids.js';
import { classifyPost } from './classify.js';
import { endpointAt } from './endpoint-path.js';
import { sendError } from './http-errors.js';
import {
  accepts,
  answerClientErrors,
  BodyTooLarge,
  header,
  initializeOf,
  readBody,
  requestPath,
} from './http-io.js';
import {
  bodyTooLarge,
  carriesRequest,
  type ListenerLimits,
  listenerLimits,
  refuseBusy,
  refuseDraining,
  refuseSessions,
  refuseTooDeep,
  requestCount,
} from './http-refusals.js';
import { type HttpSession, HttpSessionTable } from './http-sessions.js';
import { listen } from './listen.js';
import { ModernEndpoint } from './modern-endpoint.js';
import { createRequestGuard } from './origin.js';
import { Refusals } from './refusals.js';

export interface HttpListener {
  url: string;
  port: number;
  sessionCount(): number;
  /** Closes the sessions of virtual servers a reload removed. */
  retainEndpoints(): Promise<void>;
  close(): Promise<void>;
}

/** What the HTTP listener serves beside MCP. */
export interface HttpListenerOptions {
  /** With a shared store, legacy sessions are served by whichever replica the balancer picks (DESIGN §12). */
  store?: Store;
  /** `cursorSecret`: replicas that share it accept each other's session ids. */
  secret?: string;
  /**
   * Public browser routes answered before anything else (no token, no Origin check: a person's browser
   * follows a link): the connect links and OAuth callback of personal upstreams (DESIGN §14).
   */
  routes?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/**
 * Serves MCP over Streamable HTTP (legacy sessions: POST, the GET notification stream, DELETE) on one
 * path, with one SessionHttpTransport and one downstream session (an SDK Server) per `Mcp-Session-Id`.
 */
export async function startHttpListener(
  gateway: Gateway,
  config: ListenerConfig,
  logger: Logger,
  auth: Authenticator | ClientDirectory,
  shared: Partial<ListenerLimits> = {},
  replication: HttpListenerOptions = {},
): Promise<HttpListener> {
  const log = logger.child('http');
  const authenticator = asAuthenticator(auth);
  const { limits, quota, drain } = listenerLimits(shared);
  const sessions = new HttpSessionTable({ gateway, log, limits, quota, drain });
  const guard = createRequestGuard(config);
  /** The modern endpoints by virtual server ('' for the root), made on first use. */
  const moderns = new Map<string, ModernEndpoint>();
  const modernAt = (endpoint: string | undefined) => {
    let found = moderns.get(endpoint ?? '');
    if (!found) {
      found = new ModernEndpoint(gateway, log, endpoint);
      moderns.set(endpoint ?? '', found);
    }
    return found;
  };
  /** Set once the listener knows its port, when the store is shared. */
  let replicas: ReplicaSessions | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // RFC 9728 metadata is public (clients read it before they have a token), like its CORS header says.
    if (authenticator.serveMetadata(req, res, config.path)) return;
    if (replication.routes?.(req, res)) return;
    // The root endpoint at the path, each virtual server at <path>/<name> (DESIGN §13); a request
    // target that is no URL path is no endpoint either.
    const pathname = requestPath(req);
    const endpoint =
      pathname === undefined
        ? null
        : endpointAt(pathname, config.path, (name) => gateway.views.get(name) !== undefined);
    if (endpoint === null) {
      req.resume();
      return sendError(res, Refusals.notFound(config.path));
    }
    const refused = guard(req);
    if (refused) {
      log.warn('request refused', { reason: refused, origin: req.headers.origin, host: req.headers.host });
      return sendError(res, Refusals.forbidden(refused));
    }
    const auth = await authenticator.authenticate(header(req, 'authorization'));
    if (!auth.ok) {
      req.resume();
      // Never log the header itself: it may hold a (mistyped) token.
      log.warn('request refused', {
        reason: auth.reason,
        detail: auth.error.message,
        remote: req.socket.remoteAddress,
      });
      return sendError(res, auth.error, { headers: auth.headers });
    }
    const identity = auth.identity;
    /** A session answers only the client that opened it (a stolen session id is useless without its token). */
    const wrongClient = (entry: HttpSession): boolean => {
      if (entry.endpoint !== endpoint) {
        // Another endpoint's session does not exist here.
        sendError(res, Refusals.sessionNotFound());
        return true;
      }
      if (entry.identity.id !== identity.id) {
        sendError(res, Refusals.forbidden('this session belongs to another client'));
        return true;
      }
      if (!sameGroups(entry.identity, identity)) {
        const detail =
          'this token carries other groups than the one that opened the session: open a new session';
        sendError(res, Refusals.forbidden(detail));
        return true;
      }
      refreshSubjectToken(entry.identity, identity);
      return false;
    };
    const sessionId = header(req, 'mcp-session-id');
    const version = header(req, 'mcp-protocol-version');
    const unsupported = () =>
      sendError(res, Refusals.unsupportedVersion(version, SUPPORTED_PROTOCOL_VERSIONS));
    if (req.method === 'GET' || req.method === 'DELETE') {
      req.resume();
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return unsupported();
      let entry = sessionId ? sessions.get(sessionId) : undefined;
      if (!entry && sessionId && replicas) {
        const routed = await replicas.route(req, res, sessionId, identity);
        if (routed.kind === 'handled') return;
        if (routed.kind === 'local') entry = routed.entry;
      }
      if (!entry) return sendError(res, sessionId ? Refusals.sessionNotFound() : Refusals.sessionRequired());
      if (wrongClient(entry)) return;
      entry.lastSeen = Date.now();
      if (req.method === 'DELETE') {
        await sessions.terminate(entry);
        res.writeHead(200).end();
        return;
      }
      if (!accepts(req, 'text/event-stream'))
        return sendError(
          res,
          Refusals.notAcceptable('the notification stream needs Accept: text/event-stream'),
        );
      entry.openStreams += 1;
      res.once('close', () => {
        entry.openStreams -= 1;
        entry.lastSeen = Date.now();
      });
      entry.transport.handleGet(res, { lastEventId: header(req, 'last-event-id'), protocolVersion: version });
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      return sendError(res, Refusals.methodNotAllowed(req.method), {
        headers: { allow: 'GET, POST, DELETE' },
      });
    }
    let raw: Buffer;
    try {
      raw = await readBody(req, limits.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) return bodyTooLarge(req, res, limits.maxBodyBytes);
      return sendError(res, Refusals.parseError((error as Error).message));
    }
    const text = raw.toString('utf8');
    // Before it is parsed: nothing downstream of here may recurse through a 100,000-level body.
    if (jsonTextTooDeep(text, limits.maxJsonDepth)) return refuseTooDeep(res, limits.maxJsonDepth);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return sendError(res, Refusals.parseError((error as Error).message));
    }
    // The era, once: a POST without a session is classified from its body (and headers); a 2026-07-28
    // message goes to the stateless endpoint, everything else (a session's request, a batch, the
    // initialize opening a session) to a session.
    const route = sessionId ? undefined : classifyPost(req, body);
    if (route?.kind === 'refused')
      return sendError(res, route.refusal.error, { id: idOf(body), status: route.refusal.status });
    if (route?.kind === 'modern') {
      if (drain.draining && carriesRequest(body)) return refuseDraining(res);
      // Modern requests are stateless: each is one request in flight, except a listen stream.
      const isListen = route.route.message.method === 'subscriptions/listen';
      if (replicas && (await replicas.forwardHeld(req, res, body, raw))) return;
      if (carriesRequest(body) && !isListen) res.once('close', drain.track());
      await modernAt(endpoint).serve(identity, req, res, route.route);
      return;
    }
    const invalid = checkEnvelope(body);
    // A session's malformed answers to what it was asked still fail those questions at once (below).
    if (invalid && !(invalid.answers && sessionId))
      return sendError(res, invalid.error, { id: invalid.id, status: 400 });
    if (drain.draining && carriesRequest(body)) return refuseDraining(res);
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return unsupported();
    const messages = body as JSONRPCMessage | JSONRPCMessage[];
    const acceptsSse = accepts(req, 'text/event-stream');
    if (sessionId) {
      let entry = sessions.get(sessionId);
      if (!entry && replicas) {
        const routed = await replicas.route(req, res, sessionId, identity, raw);
        if (routed.kind === 'handled') return;
        if (routed.kind === 'local') entry = routed.entry;
      }
      if (!entry) return sendError(res, Refusals.sessionNotFound());
      if (wrongClient(entry)) return;
      entry.lastSeen = Date.now();
      if (invalid) {
        for (const answer of invalid.answers ?? []) entry.transport.deliver(answer as JSONRPCMessage);
        return sendError(res, invalid.error, { id: invalid.id, status: 400 });
      }
      if (requestCount(messages) > entry.gate.free) return refuseBusy(res, limits.concurrentPerSession);
      entry.transport.handlePost(res, messages, acceptsSse, version);
      return;
    }
    const initialize = initializeOf(body);
    if (!initialize) return sendError(res, Refusals.initializeRequired());
    const init = replicas ? initializeParams(initialize.params) : undefined;
    const opened =
      replicas && init
        ? await replicas.open(identity, init, endpoint)
        : await sessions.open(identity, { endpoint });
    if (!opened.ok) return refuseSessions(res, opened);
    const entry = opened.entry;
    entry.transport.handlePost(res, messages, acceptsSse);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log.error('request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) sendError(res, Refusals.internal());
      else res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server, (_, message) => errorResponse(null, Refusals.malformedHttp(message)));

  const { port, url } = await listen(server, config, 'http');
  if (replication.store?.shared) {
    const replica = new GatewayReplica(gateway);
    replicas = new ReplicaSessions({
      table: sessions,
      store: replication.store,
      self: advertisedUrl(config, port),
      secret: replication.secret,
      idleSessionMs: () => limits.idleSessionMs,
      holderOf: (method, params) => replica.holderOf(method, params),
      logger: log,
    });
    await replicas.start();
    replica.advertise(replicas.self);
    log.info('legacy sessions are shared with the other replicas', { advertise: replicas.self });
  }
  return {
    url,
    port,
    sessionCount: () => sessions.size,
    retainEndpoints: async () => {
      const exists = (name: string) => gateway.views.get(name) !== undefined;
      for (const [name, endpoint] of moderns) {
        if (name === '' || exists(name)) continue;
        moderns.delete(name);
        await endpoint.close();
      }
      await sessions.retain(exists);
    },
    close: async () => {
      for (const endpoint of moderns.values()) await endpoint.close();
      await sessions.close();
      await replicas?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The id of a single request, for an answer to it (a batch or a notification has none). */
function idOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function sameGroups(a: Identity, b: Identity): boolean {
  return a.groups.length === b.groups.length && a.groups.every((g) => b.groups.includes(g));
}
