import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../derive-key.js';
import { GatewayError } from '../errors.js';

/** How long a client has to answer an input-required result (the SDK's own legacy shim waits as long). */
export const INPUT_ROUND_TTL_MS = 10 * 60_000;

/** What a `requestState` the gateway hands out stands for. */
export interface SealedState {
  /** The upstream the multi round-trip request runs against. */
  upstream: string;
  /** The identity of the caller. */
  identity: string;
  /** The method and the exposed name or URI of the request. */
  target: string;
  /** The upstream's own `requestState`, to give back to it on the retry. */
  upstreamState?: string;
  /** A suspended upstream call waiting for the client's answers (legacy upstream, modern client). */
  pending?: string;
}

/**
 * The state of a round the gateway itself asked (a plugin's question, e.g. an approval): bound like
 * any state, and also to the request's own parameters, so the retry that answers it is the same call.
 */
export interface AskedState {
  upstream: string;
  identity: string;
  target: string;
  /** Digest of the request's parameters (without `_meta`, `inputResponses`, `requestState`). */
  params: string;
  /** When the question was first put, epoch ms (a plugin's own timeout counts from it). */
  askedAt: number;
  /** Answers of earlier rounds of the same request, by input key. */
  answers: Record<string, unknown>;
}

interface Wire {
  v: 1;
  /** `ask`: a round the gateway asked itself (AskedState); absent: a round of an upstream's. */
  k?: 'ask';
  u: string;
  i: string;
  t: string;
  s?: string;
  p?: string;
  /** The replica that sealed it (its advertised URL), when replicas share a store. */
  h?: string;
  /** Expiry, epoch ms. */
  e: number;
  /** Asked rounds: the params digest, when first asked, earlier answers. */
  d?: string;
  a?: number;
  r?: Record<string, unknown>;
}

/**
 * Seals the `requestState` of multi round-trip requests (2026-07-28) passing through the gateway: an
 * HMAC binds it to the upstream, the caller's identity and the request, and an expiry bounds it, so a
 * state cannot be forged, or replayed against another upstream, caller or request. The key comes from
 * `cursorSecret` when one is configured (replicas that share it accept each other's states), else it
 * is random per process.
 */
export class RequestStateSeal {
  readonly #key: Buffer;
  readonly #now: () => number;
  /** This replica (its advertised URL): named in every state it seals. */
  instance: string | undefined;

  constructor(secret: string | undefined, now: () => number = Date.now) {
    this.#key = deriveKey('switchyard/request-state/v1', secret);
    this.#now = now;
  }

  seal(state: SealedState): string {
    const wire: Wire = {
      v: 1,
      u: state.upstream,
      i: state.identity,
      t: state.target,
      e: this.#now() + INPUT_ROUND_TTL_MS,
    };
    if (state.upstreamState !== undefined) wire.s = state.upstreamState;
    if (state.pending !== undefined) wire.p = state.pending;
    return this.#sealWire(wire);
  }

  /** Seals the state of a round the gateway asks itself (see AskedState). */
  sealAsked(state: AskedState): string {
    return this.#sealWire({
      v: 1,
      k: 'ask',
      u: state.upstream,
      i: state.identity,
      t: state.target,
      d: state.params,
      a: state.askedAt,
      ...(Object.keys(state.answers).length === 0 ? {} : { r: state.answers }),
      e: this.#now() + INPUT_ROUND_TTL_MS,
    });
  }

  /**
   * The asked round `raw` stands for; undefined when `raw` is not one (an upstream's round, or not a
   * state this gateway sealed: the caller judges those; `binding` is not computed for them). Throws
   * when it is an asked round sealed for another caller, request or parameters, or expired.
   */
  openAsked(raw: string, binding: () => Omit<AskedState, 'askedAt' | 'answers'>): AskedState | undefined {
    const wire = this.#verified(raw);
    if (wire?.k !== 'ask') return undefined;
    // Only now: the binding digests the request's parameters, which an upstream's round never needs.
    const expected = binding();
    if (
      wire.v !== 1 ||
      wire.u !== expected.upstream ||
      wire.i !== expected.identity ||
      wire.t !== expected.target ||
      wire.d !== expected.params ||
      !(wire.e > this.#now())
    ) {
      throw invalidState('it was handed out for another request, or it expired');
    }
    return { ...expected, askedAt: wire.a ?? 0, answers: wire.r ?? {} };
  }

  #sealWire(wire: Wire): string {
    // The replica that answered this round: the upstream's own state may be good on its connection only.
    if (this.instance !== undefined) wire.h = this.instance;
    const body = Buffer.from(JSON.stringify(wire)).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  /**
   * The replica that sealed a state (a call suspended there, or an upstream state minted on its
   * connection), when a replica sharing this key sealed it and it is still valid; else undefined. The
   * holder checks the rest.
   */
  holder(raw: string): string | undefined {
    const wire = this.#verified(raw);
    return wire !== undefined && wire.e > this.#now() ? wire.h : undefined;
  }

  /** The state `raw` stands for, if it is one this gateway sealed for this very upstream, caller and request. */
  open(raw: string, expected: Omit<SealedState, 'upstreamState' | 'pending'>): SealedState {
    const wire = this.#verified(raw);
    if (
      wire?.v !== 1 ||
      wire.k !== undefined ||
      wire.u !== expected.upstream ||
      wire.i !== expected.identity ||
      wire.t !== expected.target ||
      !(wire.e > this.#now())
    ) {
      throw invalidState();
    }
    return { ...expected, upstreamState: wire.s, pending: wire.p };
  }

  #verified(raw: string): Wire | undefined {
    const dot = raw.lastIndexOf('.');
    if (dot <= 0 || raw.length > 65_536) return undefined;
    const body = raw.slice(0, dot);
    const mac = Buffer.from(raw.slice(dot + 1), 'utf8');
    const wanted = Buffer.from(this.#mac(body), 'utf8');
    if (mac.length !== wanted.length || !timingSafeEqual(mac, wanted)) return undefined;
    try {
      const wire = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Wire;
      return typeof wire === 'object' && wire !== null ? wire : undefined;
    } catch {
      return undefined;
    }
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest().subarray(0, 16).toString('base64url');
  }
}

export function invalidState(detail?: string): GatewayError {
  return GatewayError.invalidParams(
    `Invalid or expired requestState${detail ? `: ${detail}` : ''}. Send the request again without requestState and inputResponses to start over.`,
    { reason: 'invalid_request_state' },
  );
}
