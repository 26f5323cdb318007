import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  type InboundModernRoute,
  InMemoryServerEventBus,
  type ServerEvent,
} from '@modelcontextprotocol/server';
import { type Gateway, type Identity, type Logger, openSession } from '@switchyard/core';
import {
  answerModern,
  Cancellation,
  errorResponse,
  ListenTracker,
  listenedUris,
  modernRoute,
  subjectTokenOf,
} from '@switchyard/core/listener';
import { refreshSubjectToken } from '../auth/authenticator.js';
import { sendError } from './http-errors.js';
import { header } from './http-io.js';
import { ModernExchange } from './modern-exchange.js';
import { Refusals } from './refusals.js';

/**
 * Modern-era (2026-07-28) requests to one endpoint (the root, or a virtual server) are stateless: the
 * gateway answers each itself (`answerModern`), and the SDK's handler serves subscriptions/listen streams
 * from its event bus (one per endpoint: a virtual server's streams hear only about what it exposes). One
 * gateway session per client identity stands for all of that client's modern requests (so plugins see who
 * is calling); what the gateway tells those sessions (updates, list changes) goes onto the one bus, which
 * delivers each event to the listen streams whose filter asks for it.
 */
export class ModernEndpoint {
  readonly #bus = new InMemoryServerEventBus();
  readonly #clients = new Map<string, ModernClient>();
  /** Events published in the current turn: several identities' sessions relay the same upstream event. */
  readonly #published = new Set<string>();
  readonly #gateway: Gateway;
  readonly #log: Logger;
  /** The virtual server it serves (DESIGN §13); undefined for the root endpoint. */
  readonly #endpoint: string | undefined;
  /** The requests being answered now, by their exchange: a shutdown answers them (`close`). */
  readonly #answering = new Map<ModernExchange, { id: string | number; cancellation: Cancellation }>();

  constructor(gateway: Gateway, log: Logger, endpoint?: string) {
    this.#gateway = gateway;
    this.#log = log;
    this.#endpoint = endpoint;
  }

  /**
   * Serves one classified 2026-07-28 message (`classifyPost`): a request the gateway answers is answered
   * here without an SDK `Server` (`answerModern`, written by `ModernExchange`); a listen stream is the SDK
   * handler's (its event bus and stream framing); a notification is accepted (202); an unknown method is
   * HTTP 404 with -32601.
   */
  async serve(
    identity: Identity,
    req: IncomingMessage,
    res: ServerResponse,
    route: InboundModernRoute,
  ): Promise<void> {
    if (route.messageKind === 'notification') return void res.writeHead(202).end();
    const message = route.message as {
      id: string | number;
      method: string;
      params?: Record<string, unknown>;
    };
    const where = modernRoute(this.#gateway, message.method);
    if (where === 'unknown')
      return sendError(res, Refusals.methodNotFound(message.method), { id: message.id });
    const client = this.#client(identity);
    if (where === 'listen') return this.#listen(client, req, res, message);
    const cancellation = new Cancellation();
    res.once('close', () => {
      if (!res.writableFinished) cancellation.abort(new Error('the client closed the request'));
    });
    const exchange = new ModernExchange(res);
    this.#answering.set(exchange, { id: message.id, cancellation });
    let response: Awaited<ReturnType<typeof answerModern>>;
    try {
      response = await answerModern(this.#gateway, client.session.sink, message, {
        signal: cancellation,
        notify: (method, params) => exchange.notify(method, params),
        header: (name) => header(req, name.toLowerCase()),
      });
    } finally {
      this.#answering.delete(exchange);
    }
    exchange.finish(response);
  }

  /**
   * Holds the upstream subscriptions a listen stream asks for until the client closes it (a URI this client
   * may not follow refuses the whole stream), and leaves the stream to the SDK's handler.
   */
  async #listen(
    client: ModernClient,
    req: IncomingMessage,
    res: ServerResponse,
    message: { id: string | number; params?: unknown },
  ) {
    const key = randomUUID();
    const refused = await client.listens.hold(key, listenedUris(message));
    if (refused) return new ModernExchange(res).finish(errorResponse(message.id, refused));
    if (res.destroyed || req.socket.destroyed) {
      client.listens.release(key);
      return;
    }
    res.once('close', () => client.listens.release(key));
    await this.#streams(client)(req, res, message);
  }

  /** The SDK handler that serves `client`'s listen streams, made when the client first opens one. */
  #streams(client: ModernClient): ReturnType<typeof toNodeHandler> {
    if (!client.streams) {
      const handler = createMcpHandler((ctx) => client.session.build(ctx), {
        legacy: 'reject',
        bus: this.#bus,
        onerror: (error) => this.#log.debug('modern request failed', { error: error.message }),
      });
      client.streams = { handler, serve: toNodeHandler(handler) };
    }
    return client.streams.serve;
  }

  #client(identity: Identity): ModernClient {
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
    const created: ModernClient = {
      identity,
      session,
      listens: new ListenTracker(this.#gateway, session.sink, this.#log),
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
    // Still being answered when the gateway stops (its grace period ran out): answered as such.
    const error = Refusals.shutDown();
    // Their handling is aborted with that error: their outcome (the audit record, the response hooks) is
    // what the client was answered, not a cancellation.
    for (const [exchange, { id, cancellation }] of this.#answering) {
      exchange.finish(errorResponse(id, error));
      cancellation.abort(error);
    }
    this.#answering.clear();
    for (const client of this.#clients.values()) {
      await client.streams?.handler.close();
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

/**
 * One client identity's modern requests: its gateway session, its listen streams and, once it has opened
 * one, the SDK handler serving them (a client that never listens costs no SDK server).
 */
interface ModernClient {
  identity: Identity;
  session: ReturnType<typeof openSession>;
  listens: ListenTracker;
  streams?: {
    handler: ReturnType<typeof createMcpHandler>;
    serve: ReturnType<typeof toNodeHandler>;
  };
}
