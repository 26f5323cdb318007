import type { SessionSink } from '../context.js';
import type { Logger } from '../logger.js';

/** The open downstream sessions, by id, and delivery of notifications to them. */
export class SessionRegistry {
  readonly #sessions = new Map<string, SessionSink>();
  readonly #log: Logger;

  constructor(logger: Logger) {
    this.#log = logger;
  }

  get size(): number {
    return this.#sessions.size;
  }

  ids(): IterableIterator<string> {
    return this.#sessions.keys();
  }

  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  open(session: SessionSink): void {
    this.#sessions.set(session.id, session);
  }

  /** Forgets a session; false when it was not open. */
  close(id: string): boolean {
    return this.#sessions.delete(id);
  }

  /** The open sessions of one identity. */
  ofIdentity(identity: string): string[] {
    return [...this.#sessions.values()].filter((s) => s.identity.id === identity).map((s) => s.id);
  }

  /** Open sessions counted by identity and transport. */
  summary(): { identity: string; transport: string; sessions: number }[] {
    const counts = new Map<string, { identity: string; transport: string; sessions: number }>();
    for (const s of this.#sessions.values()) {
      const key = `${s.identity.id}\u0000${s.transport}`;
      const entry = counts.get(key) ?? { identity: s.identity.id, transport: s.transport, sessions: 0 };
      entry.sessions += 1;
      counts.set(key, entry);
    }
    return [...counts.values()];
  }

  clear(): void {
    this.#sessions.clear();
  }

  /** Sends a notification to one session (a closed session, or a failed delivery, is logged and skipped). */
  send(id: string, method: string, params: Record<string, unknown>): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    session.notify(method, params).catch((error) => {
      this.#log.debug('could not deliver notification', { session: id, method, error: String(error) });
    });
  }

  /** Whether session `id` wants a log message of `level` (it set no level, or one at most as severe). */
  wantsLog(id: string, level: unknown): boolean {
    const wanted = this.#sessions.get(id)?.logLevel?.();
    return wanted === undefined || atLeast(level, wanted);
  }

  /** Sends a notification to every open session, or to those `to` picks. */
  broadcast(method: string, params: Record<string, unknown>, to?: (session: SessionSink) => boolean): void {
    for (const [id, session] of this.#sessions) if (!to || to(session)) this.send(id, method, params);
  }

  /** How many open sessions were opened on virtual server `endpoint`. */
  countAt(endpoint: string): number {
    let n = 0;
    for (const session of this.#sessions.values()) if (session.endpoint === endpoint) n++;
    return n;
  }

  /** The endpoint (virtual server) session `id` was opened on; undefined for the root or an unknown session. */
  endpointOf(id: string): string | undefined {
    return this.#sessions.get(id)?.endpoint;
  }
}

/** Whether a message of `level` is at least as severe as `wanted` (an unknown level always is). */
export function atLeast(level: unknown, wanted: string): boolean {
  return typeof level !== 'string' || severity(level) >= severity(wanted);
}

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function severity(level: string): number {
  const at = LEVELS.indexOf(level);
  return at < 0 ? LEVELS.length : at;
}
