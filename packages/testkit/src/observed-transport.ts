import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';

/** What {@link ListenObservingTransport} reports. */
export interface ListenObserver {
  /** A `subscriptions/listen` request arrived. */
  listenRequested(): void;
  /** The number of listen subscriptions open on this connection changed. */
  openListensChanged(delta: number): void;
}

function idOf(message: JSONRPCMessage): string | number | undefined {
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * Wraps a (stdio) transport to observe the `subscriptions/listen` traffic the SDK's `serveStdio` entry serves
 * itself (it never reaches the server instance): counts listen requests and tracks which are open until they
 * are cancelled, answered (error or graceful close) or the connection closes.
 */
export class ListenObservingTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  readonly #inner: Transport;
  readonly #observer: ListenObserver;
  readonly #open = new Set<string | number>();

  constructor(inner: Transport, observer: ListenObserver) {
    this.#inner = inner;
    this.#observer = observer;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      this.#inbound(message);
      this.onmessage?.(message, extra);
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#settleAll();
      this.onclose?.();
    };
    await this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = idOf(message);
    if (id !== undefined && !('method' in message)) this.#settle(id);
    await this.#inner.send(message, options);
  }

  async close(): Promise<void> {
    this.#settleAll();
    await this.#inner.close();
  }

  #inbound(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    const id = idOf(message);
    if (message.method === 'subscriptions/listen' && id !== undefined) {
      this.#observer.listenRequested();
      if (!this.#open.has(id)) {
        this.#open.add(id);
        this.#observer.openListensChanged(1);
      }
    } else if (message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.#settle(requestId);
    }
  }

  #settle(id: string | number): void {
    if (this.#open.delete(id)) this.#observer.openListensChanged(-1);
  }

  #settleAll(): void {
    if (this.#open.size === 0) return;
    const n = this.#open.size;
    this.#open.clear();
    this.#observer.openListensChanged(-n);
  }
}
