import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { GatewayError } from '@switchyard/core';
import { errorResponse, TransportWrapper } from '@switchyard/core/listener';
import type { Drain } from './drain.js';
import { countRefusal, type RefusalReason } from './limits.js';
import { Refusals } from './refusals.js';
import { cancelledRequest, isRequest, isResponse, type RequestId } from './wire.js';

export type GatedTransport = 'http' | 'ws' | 'stdio';

const LISTEN = 'subscriptions/listen';

/**
 * Wraps one session's transport: counts the client's requests until they are answered (or cancelled),
 * answers those past `limits.concurrentPerSession` with `busy`, those that arrive while draining with
 * `shutting_down`, and tells the drain what is in flight. A `subscriptions/listen` stream is neither
 * counted nor drained: it lasts as long as the client wants, and closing the session ends it.
 */
export class SessionGate extends TransportWrapper {
  readonly #limit: number;
  readonly #drain: Drain;
  readonly #transport: GatedTransport;
  /** The requests in flight and their drain tickets; created by a request, gone once none is left (idle). */
  #inFlight: Map<RequestId, () => void> | undefined;
  /** What `cutOff` answered the requests in flight with (their answers from upstream come too late then). */
  #cutOffWith: GatewayError | undefined;

  constructor(inner: Transport, options: { limit: number; drain: Drain; transport: GatedTransport }) {
    super(inner);
    this.#limit = options.limit;
    this.#drain = options.drain;
    this.#transport = options.transport;
  }

  /** What the inner transport answered the requests in flight with as it closed (core reads it, passed on). */
  override get closedWith(): GatewayError | undefined {
    return this.#cutOffWith ?? super.closedWith;
  }

  /**
   * Answers every request still in flight with `error` before the session is closed (the shutdown grace
   * period ran out: `shutting_down`), as an HTTP session answers its waiting POSTs: the client hears why
   * instead of a bare close, and core records that outcome (`closedWith`), not a cancellation. An answer
   * the upstream sends after this is dropped: each request is answered once.
   */
  async cutOff(error: GatewayError): Promise<void> {
    if (this.#cutOffWith) return;
    this.#cutOffWith = error;
    const ids = [...(this.#inFlight?.keys() ?? [])];
    await Promise.all(
      ids.map((id) =>
        this.inner.send(errorResponse(id, error) as unknown as JSONRPCMessage).catch(() => undefined),
      ),
    );
  }

  /** How many more requests this session may send now. */
  get free(): number {
    return Math.max(0, this.#limit - this.inFlight);
  }

  get inFlight(): number {
    return this.#inFlight?.size ?? 0;
  }

  protected override closing(): void {
    const inFlight = this.#inFlight;
    this.#inFlight = undefined;
    for (const done of inFlight?.values() ?? []) done();
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!isResponse(message)) return this.inner.send(message, options);
    if (this.#cutOffWith) return;
    // Settled once the answer is written: a drain that ends here must not close the stream under it.
    try {
      await this.inner.send(message, options);
    } finally {
      this.#settle((message as { id: RequestId }).id);
    }
  }

  protected inbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const cancelled = cancelledRequest(message);
    if (cancelled !== undefined) this.#settle(cancelled);
    if (isRequest(message)) {
      // A second request by the id of one in flight: refused, so the first keeps its slot, its answer and
      // its cancellation (taken through, it ran past the limit and could no longer be cancelled).
      if (this.#inFlight?.has(message.id)) {
        const error = Refusals.duplicateRequestId(message.id);
        void this.inner.send(errorResponse(message.id, error) as unknown as JSONRPCMessage);
        return;
      }
      const reason: RefusalReason | undefined = this.#drain.draining
        ? 'shutting_down'
        : this.inFlight >= this.#limit
          ? 'busy'
          : undefined;
      if (reason) {
        countRefusal(reason, this.#transport);
        const error = reason === 'busy' ? Refusals.busy(this.#limit) : Refusals.shuttingDown();
        void this.inner.send(errorResponse(message.id, error) as unknown as JSONRPCMessage);
        return;
      }
      if (message.method !== LISTEN) {
        this.#inFlight ??= new Map();
        this.#inFlight.set(message.id, this.#drain.track());
      }
    }
    this.onmessage?.(message, extra);
  }

  #settle(id: RequestId): void {
    const done = this.#inFlight?.get(id);
    if (!done) return;
    this.#inFlight?.delete(id);
    if (this.#inFlight?.size === 0) this.#inFlight = undefined;
    done();
  }
}
