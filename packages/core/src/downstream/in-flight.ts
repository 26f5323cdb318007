import { Cancellation } from '../cancellation.js';
import type { GatewayError } from '../errors.js';

type RequestId = string | number;

/**
 * The requests of one session the gateway is answering itself, by id (none while idle), each with the
 * cancellation its handling watches: the client cancels one (`notifications/cancelled`), a
 * closed session aborts them all. Shared by `LegacyAnswers` and `ModernSessionAnswers`.
 */
export class InFlightRequests {
  #byId: Map<RequestId, Cancellation> | undefined;

  /** Request `id` starts: its cancellation, until `end`. */
  begin(id: RequestId): Cancellation {
    const cancellation = new Cancellation();
    this.#byId ??= new Map();
    this.#byId.set(id, cancellation);
    return cancellation;
  }

  /** Request `id` is answered (a later request reusing the id keeps its own cancellation). */
  end(id: RequestId, cancellation: Cancellation): void {
    if (this.#byId?.get(id) === cancellation) this.#byId.delete(id);
    if (this.#byId?.size === 0) this.#byId = undefined;
  }

  /** Like the SDK's own handlers: `notifications/cancelled` aborts the request with the client's reason. */
  cancel(params: unknown): void {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return;
    const { requestId, reason } = params as { requestId?: unknown; reason?: unknown };
    if (typeof requestId === 'string' || typeof requestId === 'number')
      this.#byId?.get(requestId)?.abort(reason);
  }

  /**
   * The session closed: every request still being answered is aborted, with `answered` when its
   * transport answered them so (their outcome is then that error, not the client's cancellation).
   */
  abortAll(answered?: GatewayError): void {
    const byId = this.#byId;
    this.#byId = undefined;
    const reason = answered ?? new Error('Connection closed');
    for (const cancellation of byId?.values() ?? []) cancellation.abort(reason);
  }
}
