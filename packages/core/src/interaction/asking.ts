import type { RequestContext } from '../context.js';
import { askedBinding, askerFor } from './ask.js';
import { INPUT_ROUND_TTL_MS, invalidState, type RequestStateSeal } from './request-state.js';

/** At most this many answered rounds are remembered (each until its state expires). */
const MAX_SPENT = 100_000;

/**
 * Gives each request its `ask` (see Ask) as it enters the gateway. A 2026-07-28 client's retry that
 * answers a round the gateway asked itself is recognised here, before any plugin runs: its state must
 * be bound to this caller, request and parameters, and is spent (a replayed state is refused); the
 * answers go to `ask`, and the request goes on without them, so the upstream is called afresh.
 */
export class Asking {
  readonly #seal: RequestStateSeal;
  readonly #now: () => number;
  /** The states already answered (their MACs), with their expiry. */
  readonly #spent = new Map<string, number>();

  constructor(seal: RequestStateSeal, now: () => number = Date.now) {
    this.#seal = seal;
    this.#now = now;
  }

  /** The request as the plugins get it (throws a GatewayError for a bad or replayed asked state). */
  enter(ctx: RequestContext): RequestContext {
    const client = ctx.client;
    const raw = client?.era === 'modern' ? client.requestState : undefined;
    const asked = raw === undefined ? undefined : this.#seal.openAsked(raw, () => askedBinding(ctx));
    if (asked === undefined || raw === undefined) {
      ctx.ask ??= askerFor(ctx, this.#seal, undefined, this.#now);
      return ctx;
    }
    this.#spend(raw);
    const answered: RequestContext = {
      ...ctx,
      client: { ...client!, requestState: undefined, inputResponses: undefined },
    };
    answered.ask = askerFor(
      answered,
      this.#seal,
      { ...asked, answers: { ...asked.answers, ...client?.inputResponses } },
      this.#now,
    );
    return answered;
  }

  #spend(raw: string): void {
    const mac = raw.slice(raw.lastIndexOf('.') + 1);
    const now = this.#now();
    if (this.#spent.has(mac)) throw invalidState('it was already answered');
    if (this.#spent.size >= MAX_SPENT) {
      for (const [key, expiry] of this.#spent) {
        if (expiry > now && this.#spent.size < MAX_SPENT) break;
        this.#spent.delete(key);
      }
    }
    this.#spent.set(mac, now + INPUT_ROUND_TTL_MS);
  }
}
