type RequestId = string | number;

/**
 * The requests of one session the gateway is answering itself, by id (none while idle), each with the
 * controller whose signal its handling watches: the client cancels one (`notifications/cancelled`), a
 * closed session aborts them all. Shared by `LegacyAnswers` and `ModernSessionAnswers`.
 */
export class InFlightRequests {
  #byId: Map<RequestId, AbortController> | undefined;

  /** Request `id` starts: its controller, until `end`. */
  begin(id: RequestId): AbortController {
    const controller = new AbortController();
    this.#byId ??= new Map();
    this.#byId.set(id, controller);
    return controller;
  }

  /** Request `id` is answered (a later request reusing the id keeps its own controller). */
  end(id: RequestId, controller: AbortController): void {
    if (this.#byId?.get(id) === controller) this.#byId.delete(id);
    if (this.#byId?.size === 0) this.#byId = undefined;
  }

  /** Like the SDK's own handlers: `notifications/cancelled` aborts the request's signal with the client's reason. */
  cancel(params: unknown): void {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return;
    const { requestId, reason } = params as { requestId?: unknown; reason?: unknown };
    if (typeof requestId === 'string' || typeof requestId === 'number')
      this.#byId?.get(requestId)?.abort(reason);
  }

  /** The session closed: every request still being answered is aborted. */
  abortAll(): void {
    const byId = this.#byId;
    this.#byId = undefined;
    for (const controller of byId?.values() ?? []) controller.abort(new Error('Connection closed'));
  }
}
