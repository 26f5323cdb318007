import type { Identity, Logger, Store } from '@switchyard/core';
import { type BoardMessage, readBoardMessage } from './board-messages.js';
import {
  type EndedApproval,
  EndedApprovals,
  mayDecide,
  type PendingApproval,
  type PendingApprovals,
} from './pending.js';

/**
 * Why a decision was not taken: no such call (or one the caller may not decide), the store did not
 * answer, or the call stopped waiting already (`ended` says how).
 */
export type DecideRefusal = 'not_found' | 'forbidden' | 'unavailable' | { ended: EndedApproval };

const CHANNEL = 'approvals';

/**
 * The pending approvals as approvers see them and decide them. Alone, the calls held by this gateway.
 * With a shared store (replicas, DESIGN §12), every replica's: each announces the calls it holds and
 * when they go on the plugin's channel, mirrors the others', and a decision taken on any replica is
 * claimed once in the store (the first approver wins, whichever replica each used) and sent to the
 * replica that holds the call.
 */
export class ApprovalBoard {
  readonly #local: PendingApprovals;
  readonly #store: Store;
  readonly #log: Logger;
  readonly #now: () => number;
  /** Calls other replicas hold, by id. */
  readonly #remote = new Map<string, PendingApproval>();
  /** Calls other replicas held that stopped waiting lately. */
  readonly #remoteEnded = new EndedApprovals();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(local: PendingApprovals, store: Store, log: Logger, now: () => number = Date.now) {
    this.#local = local;
    this.#store = store;
    this.#log = log;
    this.#now = now;
  }

  get shared(): boolean {
    return this.#store.shared && this.#store.pubsub !== undefined;
  }

  /** Joins the other replicas (with a shared store): mirrors their calls, announces this one's. */
  async start(): Promise<void> {
    const pubsub = this.#store.pubsub;
    if (!this.#store.shared || !pubsub) return;
    this.#local.events = {
      held: (approval) => this.#publish({ t: 'held', approval }),
      gone: (ended) => this.#publish({ t: 'gone', id: ended.id, ended }),
    };
    this.#unsubscribe = await pubsub.subscribe(CHANNEL, (raw) => this.#receive(raw));
    this.#publish({ t: 'hello' });
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.().catch(() => {});
  }

  /** Every pending approval: held here, and (with a shared store) on the other replicas. */
  all(): PendingApproval[] {
    const now = this.#now();
    for (const [id, approval] of this.#remote) if (approval.expiresAt <= now) this.#remote.delete(id);
    return [...this.#local.all(), ...this.#remote.values()];
  }

  /** The pending approvals `identity` may decide (every one for an admin). */
  visibleTo(identity: Identity, admin: boolean): PendingApproval[] {
    return this.all().filter((a) => admin || mayDecide(identity, a));
  }

  /** Decides one pending call, held here or on another replica; the reason when it cannot. */
  async decide(
    id: string,
    decision: 'approve' | 'deny',
    identity: Identity,
    admin: boolean,
  ): Promise<DecideRefusal | undefined> {
    const approval = this.#local.get(id) ?? this.#remote.get(id);
    if (!approval) {
      // A call that stopped waiting is named to those who could have decided it; to others it does not exist.
      const ended = this.#local.ended(id) ?? this.#remoteEnded.get(id, this.#now());
      return ended && (admin || mayDecide(identity, ended)) ? { ended } : 'not_found';
    }
    if (!admin && !mayDecide(identity, approval)) return 'forbidden';
    if (this.shared) {
      const claimed = await this.#store
        .setIfAbsent(`decided:${id}`, decision, { ttlMs: Math.max(1000, approval.expiresAt - this.#now()) })
        .catch(() => undefined);
      if (claimed === undefined && !this.#local.get(id)) return 'unavailable';
      if (claimed === false) {
        const ended = this.#local.ended(id) ?? this.#remoteEnded.get(id, this.#now());
        return ended ? { ended } : 'not_found';
      }
    }
    if (this.#local.settle(id, decision, identity.id)) return undefined;
    this.#remote.delete(id);
    this.#publish({ t: 'decide', id, decision, approver: identity.id });
    return undefined;
  }

  #receive(raw: string): void {
    const message = readBoardMessage(raw);
    if (!message) {
      this.#log.debug('dropped an approvals message that is none', { length: raw.length });
      return;
    }
    switch (message.t) {
      case 'hello':
        for (const approval of this.#local.all()) this.#publish({ t: 'held', approval });
        return;
      case 'held':
        if (!this.#local.get(message.approval.id)) this.#remote.set(message.approval.id, message.approval);
        return;
      case 'gone':
        this.#remote.delete(message.id);
        if (message.ended) this.#remoteEnded.add(message.ended);
        return;
      case 'decide':
        this.#local.settle(message.id, message.decision, message.approver);
        return;
    }
  }

  #publish(message: BoardMessage): void {
    this.#store.pubsub?.publish(CHANNEL, JSON.stringify(message)).catch((error: unknown) => {
      this.#log.warn('could not share a pending approval with the other replicas', {
        kind: message.t,
        error: String(error),
      });
    });
  }
}
