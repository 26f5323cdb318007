import { randomBytes } from 'node:crypto';
import type { Identity } from '@switchyard/core';

/** A call held until a member of one of `groups` decides (GET /admin/approvals lists these). */
export interface PendingApproval {
  /** 128 random bits, base64url: cannot be guessed. */
  readonly id: string;
  readonly identity: string;
  /** The exposed tool name. */
  readonly tool: string;
  readonly server: string;
  readonly arguments: unknown;
  /** SHA-256 of (identity, tool, arguments): what the approval binds to. */
  readonly digest: string;
  readonly groups: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** How a held call was decided: by an approver, or by the clock. */
export type Decided =
  | { readonly decision: 'approve' | 'deny'; readonly approver: string }
  | { readonly decision: 'timeout' };

/** How a held call ended: decided, or withdrawn (its caller cancelled, or its request went away). */
export type GroupDecision = Decided | { readonly decision: 'withdrawn' };

/**
 * How a held call stopped waiting: decided, timed out, or withdrawn (the caller cancelled or went away).
 * Kept for a while so an approver who comes too late hears what happened instead of "not found".
 */
export interface EndedApproval {
  readonly id: string;
  readonly groups: readonly string[];
  readonly outcome: 'approved' | 'denied' | 'timed_out' | 'withdrawn';
  /** Who decided (approved or denied). */
  readonly by?: string;
  readonly at: number;
}

/** How long, and how many, ended calls are remembered. */
export const ENDED_KEPT_MS = 15 * 60_000;
export const ENDED_KEPT = 1000;

/** At most this many calls wait at once; more are refused (a held call holds its request open). */
export const MAX_PENDING = 1000;

interface Held {
  readonly approval: PendingApproval;
  settle(decision: Decided): void;
}

/**
 * The calls waiting for an approver group: each is decided once (approve, deny, or timeout), then
 * forgotten, so an id can be neither replayed nor reused.
 */
/** What the holder of the calls tells others (the approval board sharing them across replicas). */
export interface PendingEvents {
  held?(approval: PendingApproval): void;
  gone?(ended: EndedApproval): void;
}

export class PendingApprovals {
  readonly #held = new Map<string, Held>();
  readonly #ended = new EndedApprovals();
  readonly #now: () => number;
  /** Set once, by the approval board. */
  events: PendingEvents = {};

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  get size(): number {
    return this.#held.size;
  }

  /**
   * Holds a call until it is decided or `timeoutMs` passes; `signal` (the caller gave up) forgets it and
   * settles it `withdrawn`.
   * Undefined when `MAX_PENDING` calls already wait.
   */
  hold(
    call: Omit<PendingApproval, 'id' | 'createdAt' | 'expiresAt'>,
    timeoutMs: number,
    signal: AbortSignal,
    onHeld?: (approval: PendingApproval) => void,
  ): Promise<GroupDecision> | undefined {
    if (this.#held.size >= MAX_PENDING) return undefined;
    const now = this.#now();
    const approval: PendingApproval = {
      ...call,
      id: randomBytes(16).toString('base64url'),
      createdAt: now,
      expiresAt: now + timeoutMs,
    };
    return new Promise<GroupDecision>((resolve) => {
      const finish = (outcome: EndedApproval['outcome'], by?: string) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abandon);
        this.#held.delete(approval.id);
        const ended: EndedApproval = {
          id: approval.id,
          groups: approval.groups,
          outcome,
          by,
          at: this.#now(),
        };
        this.#ended.add(ended);
        this.events.gone?.(ended);
      };
      const abandon = () => {
        finish('withdrawn');
        resolve({ decision: 'withdrawn' });
      };
      const timer = setTimeout(() => {
        finish('timed_out');
        resolve({ decision: 'timeout' });
      }, timeoutMs);
      timer.unref?.();
      signal.addEventListener('abort', abandon, { once: true });
      this.#held.set(approval.id, {
        approval,
        settle: (decision) => {
          if (decision.decision === 'timeout') finish('timed_out');
          else finish(decision.decision === 'approve' ? 'approved' : 'denied', decision.approver);
          resolve(decision);
        },
      });
      onHeld?.(approval);
      this.events.held?.(approval);
    });
  }

  /** A call held here, by id. */
  get(id: string): PendingApproval | undefined {
    return this.#held.get(id)?.approval;
  }

  /** How a call held here stopped waiting, while it is remembered. */
  ended(id: string): EndedApproval | undefined {
    return this.#ended.get(id, this.#now());
  }

  /** Every call held here. */
  all(): PendingApproval[] {
    return [...this.#held.values()].map((h) => h.approval);
  }

  /** Settles a held call with a decision taken (and authorized) elsewhere; false when it is not held here. */
  settle(id: string, decision: 'approve' | 'deny', approver: string): boolean {
    const held = this.#held.get(id);
    held?.settle({ decision, approver });
    return held !== undefined;
  }

  /** Denies every held call (the gateway is shutting down). */
  close(): void {
    for (const held of [...this.#held.values()]) held.settle({ decision: 'deny', approver: 'shutdown' });
  }
}

/** Whether `identity` is in one of the approval's groups. */
export function mayDecide(identity: Identity, approval: Pick<PendingApproval, 'groups'>): boolean {
  return identity.groups.some((g) => approval.groups.includes(g));
}

/** The calls that stopped waiting lately, oldest first: at most `ENDED_KEPT`, for `ENDED_KEPT_MS`. */
export class EndedApprovals {
  readonly #byId = new Map<string, EndedApproval>();

  add(ended: EndedApproval): void {
    this.#byId.delete(ended.id);
    this.#byId.set(ended.id, ended);
    if (this.#byId.size > ENDED_KEPT) this.#byId.delete(this.#byId.keys().next().value as string);
  }

  get(id: string, now: number): EndedApproval | undefined {
    for (const [key, ended] of this.#byId) {
      if (now - ended.at < ENDED_KEPT_MS) break;
      this.#byId.delete(key);
    }
    return this.#byId.get(id);
  }
}
