/**
 * "Subscriptions restored": after an upstream came back (restart, resume, reconnect after a reload), it is
 * made to emit `notifications/resources/updated` for its watched resource every half second until every
 * open session subscribed to it has received one again, through the gateway. Bounded; the time from the
 * upstream's return to the last session's update is the restore time.
 */
import type { SoakSession } from './session.js';
import type { SoakUpstream } from './upstreams.js';

const TRIGGER_EVERY_MS = 500;

export interface RestoreResult {
  upstream: string;
  fault: string;
  /** Milliseconds from the upstream's return until every subscribed session had an update; undefined: not. */
  restoredMs?: number;
  /** Open subscribed sessions when the check ended, and how many of them had an update. */
  sessions: number;
  received: number;
  /** Of the sessions still waiting at the end: their names and eras (first few). */
  missing: string[];
}

export async function checkRestored(
  upstream: SoakUpstream,
  fault: string,
  sessions: () => Iterable<SoakSession>,
  since: number,
  boundMs: number,
): Promise<RestoreResult> {
  const waiting = (): SoakSession[] =>
    [...sessions()].filter((s) => {
      const subscribed = s.subscribedAt.get(upstream.name);
      if (!s.open || subscribed === undefined) return false;
      return (s.lastUpdate.get(upstream.name) ?? 0) < Math.max(since, subscribed);
    });
  const subscribed = (): SoakSession[] =>
    [...sessions()].filter((s) => s.open && s.subscribedAt.has(upstream.name));
  // When each session first had its update (polled: the update seen first, within one trigger period).
  const firstUpdate = new Map<SoakSession, number>();
  const deadline = since + boundMs;
  while (Date.now() < deadline) {
    const control = await upstream.control().catch(() => undefined);
    await control?.updated(upstream.watchedUri).catch(() => {});
    await sleep(TRIGGER_EVERY_MS);
    const late = new Set(waiting());
    for (const s of subscribed()) {
      if (!late.has(s) && !firstUpdate.has(s)) firstUpdate.set(s, s.lastUpdate.get(upstream.name) ?? 0);
    }
    const n = subscribed().length;
    if (late.size === 0 && n > 0) {
      const last = Math.max(...subscribed().map((s) => firstUpdate.get(s) ?? 0));
      return {
        upstream: upstream.name,
        fault,
        restoredMs: last - since,
        sessions: n,
        received: n,
        missing: [],
      };
    }
  }
  const left = waiting();
  const n = subscribed().length;
  return {
    upstream: upstream.name,
    fault,
    sessions: n,
    received: n - left.length,
    missing: left.slice(0, 5).map((s) => s.name),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
