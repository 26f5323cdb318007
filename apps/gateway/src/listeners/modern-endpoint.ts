import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, InMemoryServerEventBus, type ServerEvent } from '@modelcontextprotocol/server';
import { type Gateway, type Identity, type Logger, openSession } from '@switchyard/core';
import { errorResponse, ListenTracker, listenedUris, subjectTokenOf } from '@switchyard/core/listener';
import { refreshSubjectToken } from '../auth/authenticator.js';
import { sendError } from './http-errors.js';
import { sendJson } from './http-io.js';
import { refuseParamHeaders } from './param-headers.js';
import { Refusals } from './refusals.js';

/**
 * Modern-era (2026-07-28) requests to one endpoint (the root, or a virtual server) are stateless: the
 * SDK's handler serves them, one Server instance per request, and serves subscriptions/listen streams
 * from its event bus (one per endpoint: a virtual server's streams hear only about what it exposes). One gateway session per client
 * identity stands for all of that client's modern requests (so plugins see who is calling); what the
 * gateway tells those sessions (updates, list changes) goes onto the one bus, which delivers each event
 * to the listen streams whose filter asks for it.
 */
export class ModernEndpoint {
  readonly #bus = new InMemoryServerEventBus();
  readonly #clients = new Map<
    string,
    {
      identity: Identity;
      session: ReturnType<typeof openSession>;
      listens: ListenTracker;
      handler: ReturnType<typeof createMcpHandler>;
      serve: ReturnType<typeof toNodeHandler>;
    }
  >();
  /** Events published in the current turn: several identities' sessions relay the same upstream event. */
  readonly #published = new Set<string>();
  readonly #gateway: Gateway;
  readonly #log: Logger;
  /** The virtual server it serves (DESIGN §13); undefined for the root endpoint. */
  readonly #endpoint: string | undefined;

  constructor(gateway: Gateway, log: Logger, endpoint?: string) {
    this.#gateway = gateway;
    this.#log = log;
    this.#endpoint = endpoint;
  }

  async serve(identity: Identity, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const message = body as { method?: unknown; id?: unknown; params?: unknown };
    const id = message.id as string | number | undefined;
    if (id !== undefined && typeof message.method === 'string' && !this.#answers(message.method)) {
      return sendError(res, Refusals.methodNotFound(message.method), { id });
    }
    if (message.method === 'tools/call') {
      const refused = refuseParamHeaders(this.#gateway, req, message);
      if (refused) {
        this.#log.debug('modern request refused', { error: refused.message });
        return sendError(res, refused, { id });
      }
    }
    const client = this.#client(identity);
    if (message.method === 'subscriptions/listen') {
      // Hold the upstream subscriptions this stream asks for, until the client closes it; a URI this
      // client may not follow refuses the whole stream.
      const key = randomUUID();
      const refused = await client.listens.hold(key, listenedUris(body));
      if (refused) return sendJson(res, 200, errorResponse(message.id, refused));
      if (res.destroyed || req.socket.destroyed) {
        client.listens.release(key);
        return;
      }
      res.once('close', () => client.listens.release(key));
    }
    await client.serve(req, res, body);
  }

  #answers(method: string): boolean {
    return MODERN_SDK_METHODS.has(method) || this.#gateway.answers(method);
  }

  #client(identity: Identity) {
    // An OAuth client's groups come from its token: one with other groups (or a static client of the
    // same name) is served by another session.
    const kind = subjectTokenOf(identity) === undefined ? 'static' : 'oauth';
    const key = [kind, identity.id, ...[...identity.groups].sort()].join('\u0000');
    const existing = this.#clients.get(key);
    if (existing) {
      refreshSubjectToken(existing.identity, identity);
      return existing;
    }
    const session = openSession(this.#gateway, {
      transport: 'http',
      id: `http-modern-${identity.id}-${randomUUID()}`,
      identity,
      endpoint: this.#endpoint,
      deliver: async (method, params) => this.#publish(method, params),
    });
    const handler = createMcpHandler((ctx) => session.build(ctx), {
      legacy: 'reject',
      bus: this.#bus,
      onerror: (error) => this.#log.debug('modern request failed', { error: error.message }),
    });
    const created = {
      identity,
      session,
      listens: new ListenTracker(this.#gateway, session.sink, this.#log),
      handler,
      serve: toNodeHandler(handler),
    };
    this.#clients.set(key, created);
    return created;
  }

  #publish(method: string, params: Record<string, unknown>): void {
    const event = busEvent(method, params);
    if (!event) return;
    const key = event.kind === 'resource_updated' ? `u:${event.uri}` : event.kind;
    if (this.#published.has(key)) return;
    if (this.#published.size === 0) queueMicrotask(() => this.#published.clear());
    this.#published.add(key);
    this.#bus.publish(event);
  }

  async close(): Promise<void> {
    for (const client of this.#clients.values()) {
      await client.handler.close();
      await client.session.close();
    }
    this.#clients.clear();
  }
}

/** The listen-stream event a gateway notification becomes (modern clients hear changes only on streams). */
function busEvent(method: string, params: Record<string, unknown>): ServerEvent | undefined {
  switch (method) {
    case 'notifications/resources/updated':
      return typeof params.uri === 'string' ? { kind: 'resource_updated', uri: params.uri } : undefined;
    case 'notifications/resources/list_changed':
      return { kind: 'resources_list_changed' };
    case 'notifications/tools/list_changed':
      return { kind: 'tools_list_changed' };
    case 'notifications/prompts/list_changed':
      return { kind: 'prompts_list_changed' };
    default:
      return undefined;
  }
}

/** What the SDK's modern handler answers itself (everything else the gateway answers, or nobody does). */
const MODERN_SDK_METHODS = new Set(['server/discover', 'subscriptions/listen']);
