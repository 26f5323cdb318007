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

export type GroupDecision =
  | { readonly decision: 'approve' | 'deny'; readonly approver: string }
  | { readonly decision: 'timeout' };

/** At most this many calls wait at once; more are refused (a held call holds its request open). */
export const MAX_PENDING = 1000;

interface Held {
  readonly approval: PendingApproval;
  settle(decision: GroupDecision): void;
}

/**
 * The calls waiting for an approver group: each is decided once (approve, deny, or timeout), then
 * forgotten, so an id can be neither replayed nor reused.
 */
/** What the holder of the calls tells others (the approval board sharing them across replicas). */
export interface PendingEvents {
  held?(approval: PendingApproval): void;
  gone?(id: string): void;
}

export class PendingApprovals {
  readonly #held = new Map<string, Held>();
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
   * Holds a call until it is decided or `timeoutMs` passes; `signal` (the caller gave up) forgets it.
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
    return new Promise<GroupDecision>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abandon);
        this.#held.delete(approval.id);
        this.events.gone?.(approval.id);
      };
      const abandon = () => {
        finish();
        reject(signal.reason ?? new Error('the caller gave up'));
      };
      const timer = setTimeout(() => {
        finish();
        resolve({ decision: 'timeout' });
      }, timeoutMs);
      timer.unref?.();
      signal.addEventListener('abort', abandon, { once: true });
      this.#held.set(approval.id, {
        approval,
        settle: (decision) => {
          finish();
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
export function mayDecide(identity: Identity, approval: PendingApproval): boolean {
  return identity.groups.some((g) => approval.groups.includes(g));
}
