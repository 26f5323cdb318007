import type { IncomingMessage, ServerResponse } from 'node:http';
import { Drain } from './drain.js';
import { sendError } from './http-errors.js';
import { countRefusal, DEFAULT_LIMITS, type Limits, type SessionClaim, SessionQuota } from './limits.js';
import { Refusals } from './refusals.js';

// How the HTTP listener answers what a limit (or draining) refuses: a status and a JSON-RPC error
// with `data.reason`, counted in `switchyard.limits.refusals`.

/** What the listeners share: the limits, one session quota across HTTP and WebSocket, one drain. */
export interface ListenerLimits {
  limits: Limits;
  quota: SessionQuota;
  drain: Drain;
}

/** Fills what the caller did not share with defaults (a listener started alone, e.g. in a test). */
export function listenerLimits(shared: Partial<ListenerLimits>): ListenerLimits {
  const limits = shared.limits ?? { ...DEFAULT_LIMITS };
  return { limits, quota: shared.quota ?? new SessionQuota(limits), drain: shared.drain ?? new Drain() };
}

/** How long a refused body is still read (and thrown away) so the client sees the 413 before the close. */
const LINGER_MS = 1_000;

/**
 * 413 before the body is buffered. The answer is written at once, then what the client still sends is
 * read and discarded for up to LINGER_MS before the connection closes: closing at once would reset a
 * client still writing, which then never reads the 413 (nginx's "lingering close").
 */
export function bodyTooLarge(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  countRefusal('body_too_large', 'http');
  sendError(res, Refusals.bodyTooLarge(maxBytes), { headers: { connection: 'close' }, leaveOpen: true });
  const finish = () => {
    clearTimeout(timer);
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(finish, LINGER_MS);
  timer.unref();
  req.once('end', finish);
  req.once('close', finish);
  req.resume();
}

export function refuseTooDeep(res: ServerResponse, limit: number): void {
  countRefusal('too_deep', 'http');
  sendError(res, Refusals.tooDeep(limit));
}

export function refuseBusy(res: ServerResponse, limit: number): void {
  countRefusal('busy', 'http');
  sendError(res, Refusals.busy(limit));
}

export function refuseDraining(res: ServerResponse): void {
  countRefusal('shutting_down', 'http');
  sendError(res, Refusals.shuttingDown(), { headers: { connection: 'close' } });
}

export function refuseSessions(res: ServerResponse, claim: Extract<SessionClaim, { ok: false }>): void {
  countRefusal('too_many_sessions', 'http');
  sendError(res, claim.error);
}

/** Whether a parsed body holds at least one request (a message that expects an answer). */
export function carriesRequest(body: unknown): boolean {
  return requestCount(Array.isArray(body) ? body : [body]) > 0;
}

export function requestCount(messages: unknown): number {
  const list: unknown[] = Array.isArray(messages) ? messages : [messages];
  return list.filter(
    (m) => typeof m === 'object' && m !== null && 'method' in m && (m as { id?: unknown }).id !== undefined,
  ).length;
}
