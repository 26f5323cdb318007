import type { Gateway } from '@switchyard/core';

/** What `/readyz` answers: ready, or the listeners and required upstreams that are not. */
export interface Readiness {
  ready: boolean;
  body: {
    status: 'ready' | 'not_ready';
    /** Listeners that are configured but not (yet, or any more) serving. */
    listeners?: string[];
    /** Required upstreams (`"required": true`) that are not connected, with their state and last error. */
    upstreams?: { name: string; state: string; lastError?: string }[];
  };
}

/**
 * Readiness (DESIGN §10): every configured listener is up and every upstream marked `"required": true`
 * is connected. Optional upstreams never hold readiness: the gateway serves without them.
 */
export function readiness(gateway: Gateway, listenersDown: () => readonly string[]): Readiness {
  const listeners = [...listenersDown()];
  const upstreams = gateway
    .status()
    .filter((u) => u.required && u.state !== 'ready')
    .map((u) => ({ name: u.name, state: u.state, lastError: u.lastError }));
  const ready = listeners.length === 0 && upstreams.length === 0;
  if (ready) return { ready, body: { status: 'ready' } };
  return {
    ready,
    body: {
      status: 'not_ready',
      ...(listeners.length > 0 ? { listeners } : {}),
      ...(upstreams.length > 0 ? { upstreams } : {}),
    },
  };
}

/** `/healthz`: the process is alive and answering. */
export const ALIVE = { status: 'ok' } as const;
