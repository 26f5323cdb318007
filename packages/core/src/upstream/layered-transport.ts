import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/client';

type Deliver = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
type Send = (message: JSONRPCMessage, options?: TransportSendOptions) => Promise<void>;

/** One concern layered over an upstream transport (the inbound guard, task results, correlation). */
export interface TransportLayer {
  /** Every message the client sends; `next` passes it on towards the transport (or not). */
  send?(message: JSONRPCMessage, options: TransportSendOptions | undefined, next: Send): Promise<void>;
  /** Every message the transport delivers; `deliver` hands it (or something else) on towards the client. */
  receive?(message: JSONRPCMessage, extra: MessageExtraInfo | undefined, deliver: Deliver): void;
  /** Called once with a way to hand this layer a message as if the transport had delivered it. */
  attach?(receive: (message: JSONRPCMessage) => void): void;
}

/**
 * An upstream transport with its layers, as the SDK client sees it: one plain object, no `Proxy`. Sends go
 * from the outermost layer in, deliveries from the innermost out; both chains are built once. Everything
 * else (start, close, the session id, the protocol version, the close and error handlers, whether requests
 * have streams of their own) is the transport's own.
 */
export class LayeredTransport implements Transport {
  readonly #inner: Transport;
  readonly #send: Send;
  readonly #receive: Deliver;
  #onmessage: Transport['onmessage'];
  setProtocolVersion?: (version: string) => void;
  setSupportedProtocolVersions?: (versions: string[]) => void;

  /** @param layers innermost (nearest the transport) first */
  constructor(inner: Transport, layers: readonly TransportLayer[]) {
    this.#inner = inner;
    let send: Send = (message, options) => inner.send(message, options);
    for (const layer of layers) {
      const next = send;
      if (layer.send) send = (message, options) => layer.send!(message, options, next);
    }
    this.#send = send;
    let receive: Deliver = (message, extra) => this.#onmessage?.(message, extra);
    for (const layer of [...layers].reverse()) {
      const deliver = receive;
      const here: Deliver = layer.receive
        ? (message, extra) => layer.receive!(message, extra, deliver)
        : deliver;
      layer.attach?.((message) => here(message));
      receive = here;
    }
    this.#receive = receive;
    // The SDK client tells a stdio transport by its `stderr` and `pid` (its era probe then treats silence as
    // a legacy server): they are the transport's own, and only a transport that has them shows them.
    for (const key of ['stderr', 'pid'] as const) {
      if (key in inner)
        Object.defineProperty(this, key, { get: () => (inner as never)[key], enumerable: true });
    }
    const setVersion = inner.setProtocolVersion;
    if (setVersion) this.setProtocolVersion = (version) => setVersion.call(inner, version);
    const setVersions = (inner as { setSupportedProtocolVersions?: (v: string[]) => void })
      .setSupportedProtocolVersions;
    if (setVersions) this.setSupportedProtocolVersions = (versions) => setVersions.call(inner, versions);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#send(message, options);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** The SDK client asks it of a Streamable HTTP transport (a request's answer arrives on its own stream). */
  get hasPerRequestStream(): boolean | undefined {
    return (this.#inner as { hasPerRequestStream?: boolean }).hasPerRequestStream;
  }

  get onmessage(): Transport['onmessage'] {
    return this.#onmessage;
  }

  set onmessage(handler: Transport['onmessage']) {
    this.#onmessage = handler;
    this.#inner.onmessage = handler === undefined ? undefined : this.#receive;
  }

  get onclose(): Transport['onclose'] {
    return this.#inner.onclose;
  }

  set onclose(handler: Transport['onclose']) {
    this.#inner.onclose = handler;
  }

  get onerror(): Transport['onerror'] {
    return this.#inner.onerror;
  }

  set onerror(handler: Transport['onerror']) {
    this.#inner.onerror = handler;
  }
}
