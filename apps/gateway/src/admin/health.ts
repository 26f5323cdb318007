import type { Gateway, Store } from '@switchyard/core';

/** What `/readyz` answers: ready, or the listeners and required upstreams that are not. */
export interface Readiness {
  ready: boolean;
  body: {
    status: 'ready' | 'not_ready';
    /** Listeners that are configured but not (yet, or any more) serving. */
    listeners?: string[];
    /** Required upstreams (`"required": true`) that are not connected, with their state and last error. */
    upstreams?: { name: string; state: string; lastError?: string }[];
    /**
     * With a shared store (DESIGN §12): `ok`, or `degraded` while it does not answer (the replica then
     * serves with its own state, or refuses what needs the store, as `onUnavailable` says).
     */
    store?: 'ok' | 'degraded';
  };
}

/**
 * Readiness (DESIGN §10): every configured listener is up and every upstream marked `"required": true`
 * is connected. Optional upstreams never hold readiness: the gateway serves without them.
 */
export function readiness(
  gateway: Gateway,
  listenersDown: () => readonly string[],
  store?: Store,
): Readiness {
  const listeners = [...listenersDown()];
  const upstreams = gateway
    .status()
    .filter((u) => u.required && u.state !== 'ready')
    .map((u) => ({ name: u.name, state: u.state, lastError: u.lastError }));
  const ready = listeners.length === 0 && upstreams.length === 0;
  // A store that does not answer degrades the replica without taking it out of the balancer: it serves.
  const shared = store?.shared ? { store: store.available ? ('ok' as const) : ('degraded' as const) } : {};
  if (ready) return { ready, body: { status: 'ready', ...shared } };
  return {
    ready,
    body: {
      status: 'not_ready',
      ...shared,
      ...(listeners.length > 0 ? { listeners } : {}),
      ...(upstreams.length > 0 ? { upstreams } : {}),
    },
  };
}

/** `/healthz`: the process is alive and answering. */
export const ALIVE = { status: 'ok' } as const;
