import { type Counter, metrics } from '@opentelemetry/api';
import { DEFAULT_UPSTREAM_LIMITS, type GatewayError } from '@switchyard/core';
import { Refusals } from './refusals.js';

/** `limits` in the config: what one gateway process accepts before it refuses (DESIGN §10). */
export interface Limits {
  /** Open sessions in total: legacy HTTP sessions plus WebSocket connections. */
  sessions: number;
  /** Open sessions per client identity. */
  sessionsPerClient: number;
  /** Largest HTTP request body, checked before it is buffered. */
  maxBodyBytes: number;
  /** Requests one session may have in flight at once. */
  concurrentPerSession: number;
  /** A legacy HTTP session unused this long (and with no open stream) is closed. */
  idleSessionMs: number;
  /** Largest WebSocket message; a bigger one closes the connection with 1009. */
  maxWsFrameBytes: number;
  /** Largest upstream answer; a bigger one fails its request with `result_too_large` (DESIGN §11). */
  maxResultBytes: number;
  /** Pages of one upstream in one merged enumeration, before it is cut off (DESIGN §11). */
  maxPagesPerList: number;
  /**
   * Levels of arrays and objects one JSON message may nest, from a client (refused with `too_deep`) or an
   * upstream (that request fails), checked before anything recurses through it.
   */
  maxJsonDepth: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  sessions: 10_000,
  sessionsPerClient: 1_000,
  maxBodyBytes: 4 * 1024 * 1024,
  concurrentPerSession: 64,
  idleSessionMs: 30 * 60_000,
  maxWsFrameBytes: 4 * 1024 * 1024,
  maxResultBytes: DEFAULT_UPSTREAM_LIMITS.maxResultBytes,
  maxPagesPerList: DEFAULT_UPSTREAM_LIMITS.maxPagesPerList,
  maxJsonDepth: DEFAULT_UPSTREAM_LIMITS.maxJsonDepth,
});

/** The stable `data.reason` of a refusal by a limit, or by a gateway that is shutting down. */
export type RefusalReason = 'too_many_sessions' | 'body_too_large' | 'too_deep' | 'busy' | 'shutting_down';

let refusals: Counter | undefined;
/** This process's listener refusals by reason, for the status page (one gateway per process, as the metric). */
const tally = new Map<RefusalReason, number>();

/**
 * Counts one refusal as `switchyard.limits.refusals{reason, transport}` (a no-op without a metrics SDK),
 * and in the tally `/admin/status` adds to the refusals the gateway counted itself.
 */
export function countRefusal(reason: RefusalReason, transport: 'http' | 'ws' | 'stdio'): void {
  // Created on first use: telemetry providers are registered before any listener refuses anything.
  refusals ??= metrics.getMeter('switchyard').createCounter('switchyard.limits.refusals', {
    description: 'Requests, sessions and messages refused by a limit or by draining, by reason',
  });
  refusals.add(1, { reason, transport });
  tally.set(reason, (tally.get(reason) ?? 0) + 1);
}

/** The listeners' refusals so far, by reason. */
export function listenerRefusals(): Record<string, number> {
  return Object.fromEntries(tally);
}

export type SessionClaim = { ok: true; release: () => void } | { ok: false; error: GatewayError };

/**
 * Counts open sessions in total and per client identity, shared by the HTTP and WebSocket listeners.
 * A claim that fits holds a slot until its `release` (idempotent) is called.
 */
export class SessionQuota {
  readonly #limits: Pick<Limits, 'sessions' | 'sessionsPerClient'>;
  readonly #perClient = new Map<string, number>();
  #total = 0;

  constructor(limits: Pick<Limits, 'sessions' | 'sessionsPerClient'>) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#total;
  }

  claim(client: string): SessionClaim {
    const { sessions, sessionsPerClient } = this.#limits;
    if (this.#total >= sessions) {
      return {
        ok: false,
        error: Refusals.tooManySessions(
          `Too many sessions: the gateway holds its limit of ${sessions} (limits.sessions); retry later or close unused sessions`,
          'sessions',
        ),
      };
    }
    const mine = this.#perClient.get(client) ?? 0;
    if (mine >= sessionsPerClient) {
      return {
        ok: false,
        error: Refusals.tooManySessions(
          `Too many sessions: client "${client}" holds its limit of ${sessionsPerClient} (limits.sessionsPerClient); close (DELETE) sessions you no longer use`,
          'sessionsPerClient',
        ),
      };
    }
    this.#total += 1;
    this.#perClient.set(client, mine + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#total -= 1;
        const left = (this.#perClient.get(client) ?? 1) - 1;
        if (left > 0) this.#perClient.set(client, left);
        else this.#perClient.delete(client);
      },
    };
  }
}
