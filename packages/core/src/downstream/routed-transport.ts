import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import type { GatewayError } from '../errors.js';
import { TransportWrapper } from './transport-wrapper.js';

/**
 * Offered every inbound message first: returns true when it answers the message itself (the SDK must
 * not see it). `closed` runs once when the transport closes, before the SDK hears of it, with the error
 * the transport answered the requests still in flight with, when it did (`AnsweringTransport`).
 */
export interface InboundTaker {
  take(
    message: JSONRPCMessage,
    send: (message: JSONRPCMessage) => Promise<void>,
    extra?: MessageExtraInfo,
  ): boolean;
  closed(answered?: GatewayError): void;
}

/**
 * A transport that, closing, answers the requests still in flight itself (an HTTP session answers each
 * POST waiting for one, e.g. `shutting_down` once the shutdown grace period ran out): `closedWith` is
 * that error from then on. Their handling is aborted with it, so their outcome is what the client got.
 */
export interface AnsweringTransport extends Transport {
  readonly closedWith?: GatewayError | undefined;
}

/**
 * The transport a session's SDK `Server` is connected to: inbound messages the gateway answers itself
 * (`InboundTaker`) go no further, everything else reaches the SDK as it arrived. It routes; it never
 * rewrites what either side sends.
 */
export class RoutedTransport extends TransportWrapper {
  readonly #takers: readonly InboundTaker[];
  readonly #send = (message: JSONRPCMessage) => this.inner.send(message);

  /** @param takers offered each inbound message in turn, until one takes it */
  constructor(inner: Transport, takers: readonly InboundTaker[]) {
    super(inner);
    this.#takers = takers;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  protected inbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    for (const taker of this.#takers) if (taker.take(message, this.#send, extra)) return;
    this.onmessage?.(message, extra);
  }

  protected override closing(): void {
    const answered = (this.inner as AnsweringTransport).closedWith;
    for (const taker of this.#takers) taker.closed(answered);
  }
}
