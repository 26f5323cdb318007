import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import { errorResponse } from './jsonrpc.js';
import type { ListenTracker } from './listen-tracker.js';

/**
 * The transport of a channel the SDK's `serveStdio` serves (stdio, WebSocket) as seen past its listens:
 * every inbound message is shown to the session's `ListenTracker` first, and a `subscriptions/listen`
 * reaches the SDK only once its upstream subscriptions are held — refused with the tracker's error if one
 * is forbidden, and not at all if it was cancelled meanwhile. Everything else passes as it arrived.
 */
export class ListenGate implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #inner: Transport;
  readonly #listens: ListenTracker;
  #closed = false;

  constructor(inner: Transport, listens: ListenTracker) {
    this.#inner = inner;
    this.#listens = listens;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => this.#inbound(message, extra);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#closed = true;
      this.onclose?.();
    };
    await this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #inbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const verdict = this.#listens.observe(message);
    if (!verdict) {
      this.onmessage?.(message, extra);
      return;
    }
    const id = (message as { id: string | number }).id;
    void verdict.then(
      async (refused) => {
        if (refused) return this.#inner.send(errorResponse(id, refused) as unknown as JSONRPCMessage);
        if (!this.#closed && this.#listens.holding(id)) this.onmessage?.(message, extra);
      },
      (error: Error) => this.onerror?.(error),
    );
  }
}
