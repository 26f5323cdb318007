import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { GatewayError } from '../errors.js';
import type { AnsweringTransport } from './routed-transport.js';

/**
 * A session transport in front of another that looks at what arrives (`inbound`) and passes everything
 * else through: `send`, `close`, the session id, the protocol version, what the inner transport answered
 * the requests in flight with as it closed (`AnsweringTransport`). `start` takes the inner transport's
 * handlers; an error or close handler installed on it before (a listener's) keeps running, after
 * `closing`. One hop of a downstream session each: `ListenGate`, the listener's `SessionGate` and a
 * replica's `SessionRecorder`, `RoutedTransport`.
 */
export abstract class TransportWrapper implements AnsweringTransport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  protected readonly inner: Transport;

  constructor(inner: Transport) {
    this.inner = inner;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get closedWith(): GatewayError | undefined {
    return (this.inner as AnsweringTransport).closedWith;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    const inner = this.inner;
    const erred = inner.onerror;
    const closed = inner.onclose;
    inner.onmessage = (message, extra) => this.inbound(message, extra);
    inner.onerror = (error) => {
      erred?.(error);
      this.onerror?.(error);
    };
    inner.onclose = () => {
      this.closing();
      closed?.();
      this.onclose?.();
    };
    await inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** A message from the client, on its way up: passed on with `onmessage`, answered, or held. */
  protected abstract inbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void;

  /** The inner transport closed (before anyone's `onclose`). */
  protected closing(): void {}
}
