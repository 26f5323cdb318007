import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/server';
import {
  type DownstreamSession,
  type Gateway,
  type Identity,
  type Logger,
  openSession,
} from '@switchyard/core';
import type { Drain } from './drain.js';
import type { Limits, SessionClaim, SessionQuota } from './limits.js';
import { Refusals } from './refusals.js';
import { SessionGate } from './session-gate.js';
import { SessionHttpTransport } from './session-transport.js';

export interface HttpSession {
  transport: SessionHttpTransport;
  /** The transport the session's Server talks to: counts and limits its requests in flight. */
  gate: SessionGate;
  session: DownstreamSession;
  /** The client that opened the session; every later request must authenticate as the same one. */
  identity: Identity;
  /** The virtual server it was opened on (its path); undefined for the root endpoint. */
  endpoint: string | undefined;
  lastSeen: number;
  openStreams: number;
  /** Set when the session ends for good (DELETE, idle), not merely closes here (shutdown, moved away). */
  terminated?: boolean;
}

/** How a listener shapes one session it opens (replicas: a sealed id, a recorder of its state). */
export interface SessionOpenOptions {
  /** Default: a random UUID. */
  id?: string;
  /** The virtual server (DESIGN §13) the session is opened on; default the root endpoint. */
  endpoint?: string;
  /** Wraps the session's HTTP transport before the gate (e.g. to record what a takeover restores). */
  wrap?: (transport: SessionHttpTransport) => Transport;
  /** Called once the session is closed here: `terminated` when it ended for good. */
  onEnd?: (terminated: boolean) => void;
}

/**
 * The legacy HTTP listener's open sessions: each holds a slot of the shared session quota from
 * `initialize` until it closes, and one unused for `limits.idleSessionMs` (with no open stream) is closed.
 */
export class HttpSessionTable {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #gateway: Gateway;
  readonly #log: Logger;
  readonly #limits: Limits;
  readonly #quota: SessionQuota;
  readonly #drain: Drain;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: { gateway: Gateway; log: Logger; limits: Limits; quota: SessionQuota; drain: Drain }) {
    this.#gateway = options.gateway;
    this.#log = options.log;
    this.#limits = options.limits;
    this.#quota = options.quota;
    this.#drain = options.drain;
    const idleMs = this.#limits.idleSessionMs;
    // The threshold is read at each sweep: a reload may change it (the period stays).
    this.#sweeper = setInterval(() => this.#sweep(this.#limits.idleSessionMs), Math.min(60_000, idleMs));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.#sessions.get(id);
  }

  /** Opens a session for `identity`, or says why the quota refuses it. */
  async open(
    identity: Identity,
    options: SessionOpenOptions = {},
  ): Promise<{ ok: true; entry: HttpSession } | Extract<SessionClaim, { ok: false }>> {
    const claim = this.#quota.claim(identity.id);
    if (!claim.ok) return claim;
    const id = options.id ?? randomUUID();
    const transport = new SessionHttpTransport(id);
    const gate = new SessionGate(options.wrap?.(transport) ?? transport, {
      limit: this.#limits.concurrentPerSession,
      drain: this.#drain,
      transport: 'http',
    });
    const { endpoint } = options;
    const session = openSession(this.#gateway, { transport: 'http', id, identity, endpoint });
    const entry: HttpSession = {
      transport,
      gate,
      session,
      identity,
      endpoint,
      lastSeen: Date.now(),
      openStreams: 0,
    };
    this.#sessions.set(id, entry);
    gate.onclose = () => {
      this.#sessions.delete(id);
      claim.release();
      void session.close();
      options.onEnd?.(entry.terminated === true);
      this.#log.debug('session closed', { session: id, sessions: this.#sessions.size });
    };
    try {
      // A legacy session's first message is its `initialize`: its Server serves the legacy era only.
      await session.connect(gate, { era: 'legacy' });
    } catch (error) {
      this.#sessions.delete(id);
      claim.release();
      throw error;
    }
    this.#log.debug('session opened', { session: id, sessions: this.#sessions.size });
    return { ok: true, entry };
  }

  /** Ends a session for good (DELETE): no replica may resume it. */
  async terminate(entry: HttpSession): Promise<void> {
    entry.terminated = true;
    await entry.transport.close();
  }

  /** Closes the sessions of virtual servers that no longer exist (a reload removed them). */
  async retain(exists: (endpoint: string) => boolean): Promise<void> {
    const gone = [...this.#sessions.values()].filter((e) => e.endpoint !== undefined && !exists(e.endpoint));
    await Promise.allSettled(gone.map((e) => this.terminate(e)));
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    // The gateway is stopping: what is still in flight is answered as such (the grace period ran out).
    const error = Refusals.shutDown();
    await Promise.allSettled([...this.#sessions.values()].map((e) => e.transport.close(error)));
    this.#sessions.clear();
  }

  #sweep(idleMs: number): void {
    const now = Date.now();
    let closed = 0;
    for (const entry of this.#sessions.values()) {
      // A session busy with a long request or an open stream is in use: its idle time starts after.
      if (entry.openStreams > 0 || entry.gate.inFlight > 0) entry.lastSeen = now;
      else if (now - entry.lastSeen > idleMs) {
        this.#log.debug('closing idle session', { session: entry.session.id });
        void this.terminate(entry);
        closed += 1;
      }
    }
    if (closed > 0) this.#log.info('closed idle sessions', { sessions: closed, idleSessionMs: idleMs });
  }
}
