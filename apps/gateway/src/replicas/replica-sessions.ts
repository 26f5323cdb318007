import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { GatewayError, type Identity, type Logger, type Store } from '@switchyard/core';
import { sendError } from '../listeners/http-errors.js';
import { header } from '../listeners/http-io.js';
import type { HttpSession, HttpSessionTable } from '../listeners/http-sessions.js';
import type { SessionClaim } from '../listeners/limits.js';
import { Refusals } from '../listeners/refusals.js';
import { Forwarder } from './forward.js';
import { FORWARDED_HEADER, ForwardProof } from './forward-proof.js';
import { SessionDirectory, type SessionRecord } from './session-directory.js';
import { type InitializeParams, SessionIds, type SessionTicket } from './session-ids.js';
import { RESTORE_ID_PREFIX, SessionRecorder } from './session-recorder.js';

/** What routing a request for a session this replica does not hold came to. */
export type Routed =
  /** Served here: the session was restored on this replica. */
  | { kind: 'local'; entry: HttpSession }
  /** The answer is written (forwarded to the owner, or refused). */
  | { kind: 'handled' }
  /** No such session (forged, foreign, ended, or another identity's): 404. */
  | { kind: 'unknown' };

/**
 * Legacy sessions across replicas (DESIGN §12), by ownership and forwarding: the replica that opens a
 * session serves it; a request that lands elsewhere is forwarded to it (one hop, streams included), so
 * everything a session holds — its SDK server, `GET` stream, subscriptions, server-to-client requests,
 * suspended calls — lives in one place and works whichever replica the balancer picks. The session id
 * is sealed (it names the owner and carries the client's `initialize`), and the store keeps who owns
 * each session and what a takeover restores. When the owner cannot be reached (its process is gone),
 * the replica that notices takes the session over: it replays the client's `initialize`, log level and
 * subscriptions and serves it from then on; only the requests that were in flight on the dead replica
 * are lost.
 */
export class ReplicaSessions {
  readonly #table: HttpSessionTable;
  readonly #directory: SessionDirectory;
  readonly #ids: SessionIds;
  readonly #proof: ForwardProof;
  readonly #forwarder = new Forwarder();
  readonly #log: Logger;
  readonly #holderOf: (method: string, params: Record<string, unknown> | undefined) => string | undefined;
  /** Session key → the session this replica serves: its id and its record. */
  readonly #local = new Map<string, { id: string; record: SessionRecord }>();
  readonly #stopWatching: () => void;
  /** Restores in progress, so concurrent requests of one session restore it once. */
  readonly #restoring = new Map<string, Promise<HttpSession | undefined>>();

  constructor(options: {
    table: HttpSessionTable;
    store: Store;
    self: string;
    secret: string | undefined;
    idleSessionMs: () => number;
    /** `GatewayReplica.holderOf`: the replica a 2026-07-28 request's requestState or task id names. */
    holderOf: (method: string, params: Record<string, unknown> | undefined) => string | undefined;
    logger: Logger;
  }) {
    this.#table = options.table;
    this.#holderOf = options.holderOf;
    this.#ids = new SessionIds(options.secret);
    this.#proof = new ForwardProof(options.secret);
    this.#log = options.logger;
    this.#directory = new SessionDirectory({
      store: options.store.scoped('sessions:'),
      self: options.self,
      // The record outlives the idle limit a little: the owner's sweep ends the session first.
      ttlMs: () => options.idleSessionMs() + 60_000,
      logger: options.logger,
      secret: options.secret,
    });
    // Sessions opened or changed while the store was away are recorded once it is back.
    this.#stopWatching = options.store.onAvailability((available) => {
      if (available) for (const [sid, { record }] of this.#local) void this.#directory.save(sid, record);
    });
    this.#directory.onMoved((sid, owner) => {
      if (owner === this.#directory.self) return;
      const local = this.#local.get(sid);
      const entry = local && this.#table.get(local.id);
      // Another replica serves it now (or it ended): this copy must not answer for it any more.
      if (entry) void entry.transport.close();
    });
  }

  get self(): string {
    return this.#directory.self;
  }

  start(): Promise<void> {
    return this.#directory.start();
  }

  /** Opens a session here for an `initialize`, recorded in the store before the client learns its id. */
  async open(
    identity: Identity,
    init: InitializeParams,
    endpoint?: string,
  ): Promise<{ ok: true; entry: HttpSession } | Extract<SessionClaim, { ok: false }>> {
    const { id, sid } = this.#ids.mint({ owner: this.self, identity: identity.id, init, endpoint });
    const record: SessionRecord = { owner: this.self, subscriptions: [] };
    await this.#directory.save(sid, record);
    return this.#openHere(id, sid, identity, record, endpoint);
  }

  /** Routes a request for session `id`, which this replica does not serve now. */
  async route(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    identity: Identity,
    body?: Buffer,
  ): Promise<Routed> {
    const ticket = this.#ids.open(id);
    if (!ticket) return { kind: 'unknown' };
    if (ticket.identity !== identity.id) {
      // As its owner answers: another client's session is forbidden while it lives, unknown once it ended.
      const found = await this.#directory.lookup(ticket.sid, ticket.owner);
      if (!('found' in found && found.found)) return { kind: 'unknown' };
      sendError(res, Refusals.forbidden('this session belongs to another client'));
      return { kind: 'handled' };
    }
    const forwarded = this.#proof.verify(ticket.sid, header(req, FORWARDED_HEADER));
    const cached = forwarded ? undefined : this.#directory.cachedOwner(ticket.sid);
    if (cached !== undefined && cached !== this.self) {
      if ((await this.#forward(req, res, ticket, cached, body)) === 'forwarded') return { kind: 'handled' };
    }
    const found = await this.#directory.lookup(ticket.sid, ticket.owner);
    let record: SessionRecord;
    if ('unavailable' in found) {
      if (this.#directory.refuses) return refuseStore(res);
      // The store is away: the sealed id still names the opener; the session's subscriptions are unknown.
      record = { owner: ticket.owner, subscriptions: [] };
    } else if (!found.found) return { kind: 'unknown' };
    else record = found.record;
    if (!forwarded && record.owner !== this.self && record.owner !== cached) {
      if ((await this.#forward(req, res, ticket, record.owner, body)) === 'forwarded')
        return { kind: 'handled' };
    }
    const entry = await this.#restore(id, ticket, identity, record);
    if (!entry) {
      sendError(res, Refusals.sessionMoving());
      return { kind: 'handled' };
    }
    return { kind: 'local', entry };
  }

  /**
   * A 2026-07-28 request that continues something another replica holds is forwarded there: a retry whose
   * `requestState` that replica sealed (its call is suspended there, or its upstream minted the state on
   * that replica's connection), or a `tasks/*` request about a task it created (its upstream connection
   * knows the task). `GatewayReplica.holderOf` names the holder only for a state or id sealed under the
   * shared key, so nothing a client makes up is forwarded. Resolves to whether it was (else it is served
   * here: a holder that died took that state with it, and the client is told to start over).
   */
  async forwardHeld(req: IncomingMessage, res: ServerResponse, body: unknown, raw: Buffer): Promise<boolean> {
    if (Array.isArray(body)) return false;
    const { method, params } = body as { method?: unknown; params?: Record<string, unknown> };
    if (typeof method !== 'string') return false;
    const holder = this.#holderOf(method, params);
    if (holder === undefined || holder === this.self) return false;
    const token = JSON.stringify([method, params?.requestState ?? params?.taskId]);
    if (this.#proof.verify(token, header(req, FORWARDED_HEADER))) return false;
    return (await this.#forwarder.forward(req, res, holder, this.#proof.sign(token), raw)) === 'forwarded';
  }

  async close(): Promise<void> {
    this.#stopWatching();
    this.#forwarder.close();
    await this.#directory.close();
  }

  async #forward(
    req: IncomingMessage,
    res: ServerResponse,
    ticket: SessionTicket,
    owner: string,
    body: Buffer | undefined,
  ): Promise<'forwarded' | 'unreachable'> {
    const outcome = await this.#forwarder.forward(req, res, owner, this.#proof.sign(ticket.sid), body);
    if (outcome === 'unreachable') {
      this.#log.info('the replica serving a session does not answer; taking the session over', { owner });
      this.#directory.unreachable(ticket.sid);
    }
    return outcome;
  }

  /** Serves the session here from now on: claims it (when another replica owned it) and restores it once. */
  #restore(
    id: string,
    ticket: SessionTicket,
    identity: Identity,
    record: SessionRecord,
  ): Promise<HttpSession | undefined> {
    let restoring = this.#restoring.get(ticket.sid);
    if (!restoring) {
      restoring = this.#claimAndRestore(id, ticket, identity, record).finally(() =>
        this.#restoring.delete(ticket.sid),
      );
      this.#restoring.set(ticket.sid, restoring);
    }
    return restoring;
  }

  async #claimAndRestore(
    id: string,
    ticket: SessionTicket,
    identity: Identity,
    record: SessionRecord,
  ): Promise<HttpSession | undefined> {
    const existing = this.#table.get(id);
    if (existing) return existing;
    let mine = record;
    if (record.owner !== this.self && this.#directory.available) {
      const claimed = await this.#directory.takeOver(ticket.sid, record);
      if (!claimed) return undefined;
      mine = claimed;
    } else mine = { ...record, owner: this.self };
    const opened = await this.#openHere(id, ticket.sid, identity, mine, ticket.endpoint);
    if (!opened.ok) return undefined;
    opened.entry.transport.restored = true;
    const failed = await this.#replay(opened.entry, ticket.init, mine);
    this.#log.info('session restored on this replica', {
      subscriptions: mine.subscriptions.length - failed.length,
      ...(failed.length > 0 ? { notRestored: failed } : {}),
    });
    return opened.entry;
  }

  async #openHere(id: string, sid: string, identity: Identity, record: SessionRecord, endpoint?: string) {
    const opened = await this.#table.open(identity, {
      id,
      endpoint,
      wrap: (transport) =>
        new SessionRecorder(transport, record, {
          onChange: (changed) => void this.#directory.save(sid, changed),
          onUse: () => this.#directory.touch(sid),
        }),
      onEnd: (terminated) => {
        if (this.#local.get(sid)?.id === id) this.#local.delete(sid);
        if (terminated) void this.#directory.remove(sid);
        else this.#directory.forget(sid);
      },
    });
    if (opened.ok) {
      this.#local.set(sid, { id, record });
    }
    return opened;
  }

  /**
   * Replays what the client told the session: its `initialize`, then its log level and subscriptions, as
   * the gateway's own requests (no rate limit charges them again, no audit records them twice). Answers
   * the subscriptions it could not restore (each logged with why).
   */
  async #replay(entry: HttpSession, init: InitializeParams, record: SessionRecord): Promise<string[]> {
    const transport = entry.transport;
    let n = 0;
    const request = async (method: string, params: Record<string, unknown>): Promise<boolean> => {
      n += 1;
      const message = { jsonrpc: '2.0', id: `${RESTORE_ID_PREFIX}${n}`, method, params } as JSONRPCMessage;
      const answer = (await transport.inject(message)) as { error?: { message?: string } } | undefined;
      if (!answer?.error) return true;
      this.#log.warn('could not restore part of a session', {
        method,
        ...params,
        error: answer.error.message,
      });
      return false;
    };
    await request('initialize', init as unknown as Record<string, unknown>);
    await transport.inject({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
    if (record.logLevel !== undefined) await request('logging/setLevel', { level: record.logLevel });
    const restored = await Promise.all(
      record.subscriptions.map((uri) => request('resources/subscribe', { uri })),
    );
    return record.subscriptions.filter((_, i) => !restored[i]);
  }
}

function refuseStore(res: ServerResponse): Routed {
  sendError(
    res,
    GatewayError.storeUnavailable('another replica serves this session, and the store says which'),
  );
  return { kind: 'handled' };
}
