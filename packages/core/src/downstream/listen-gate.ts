import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/server';
import { errorResponse } from './jsonrpc.js';
import type { ListenTracker } from './listen-tracker.js';
import { TransportWrapper } from './transport-wrapper.js';

/**
 * The transport of a channel the SDK's `serveStdio` serves (stdio, WebSocket) as seen past its listens:
 * every inbound message is shown to the session's `ListenTracker` first, and a `subscriptions/listen`
 * reaches the SDK only once its upstream subscriptions are held — refused with the tracker's error if one
 * is forbidden, and not at all if it was cancelled meanwhile. Everything else passes as it arrived.
 */
export class ListenGate extends TransportWrapper {
  readonly #listens: ListenTracker;
  #closed = false;

  constructor(inner: ConstructorParameters<typeof TransportWrapper>[0], listens: ListenTracker) {
    super(inner);
    this.#listens = listens;
  }

  protected override closing(): void {
    this.#closed = true;
  }

  protected inbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const verdict = this.#listens.observe(message);
    if (!verdict) {
      this.onmessage?.(message, extra);
      return;
    }
    const id = (message as { id: string | number }).id;
    void verdict.then(
      async (refused) => {
        if (refused) return this.inner.send(errorResponse(id, refused) as unknown as JSONRPCMessage);
        if (!this.#closed && this.#listens.holding(id)) this.onmessage?.(message, extra);
      },
      (error: Error) => this.onerror?.(error),
    );
  }
}
