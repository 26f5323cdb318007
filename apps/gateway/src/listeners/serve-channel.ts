import type { Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { DownstreamSession, Gateway, GatewayError, Logger } from '@switchyard/core';
import { ListenGate, ListenTracker } from '@switchyard/core/listener';
import type { Drain } from './drain.js';
import { type GatedTransport, SessionGate } from './session-gate.js';

export interface ChannelOptions {
  /** The wire, for the refusal counters and the log. */
  kind: Exclude<GatedTransport, 'http'>;
  log: Logger;
  /** `limits.concurrentPerSession` and the drain the session's requests count against; none: unlimited. */
  gate?: { limit: number; drain: Drain };
  /** Runs once when the channel closes (whichever side closed it). */
  onClosed: () => void;
}

/** One session served on its channel. */
export interface ServedChannel {
  close(): Promise<void>;
  /**
   * Answers the requests still in flight with `error`, the session about to close (a gated session's:
   * `SessionGate.cutOff`; without a gate nothing is counted, and nothing is answered).
   */
  cutOff(error: GatewayError): Promise<void>;
}

/**
 * Serves one downstream session on a channel of its own (stdio, a WebSocket) in whichever era its client
 * opens with: the SDK's `serveStdio` (which takes any transport) pins an instance of `session.build` per
 * connection, a legacy one on `initialize` or a claim-less message, a 2026-07-28 one on a modern request,
 * and serves that era's `server/discover` and `subscriptions/listen` streams itself. Under it, in order from
 * the wire: the listens hold their upstream subscriptions (`ListenGate`), the requests count against the
 * session's limit and the drain (`SessionGate`), and the gateway answers its own methods (`session.wrap`).
 */
export function serveChannel(
  gateway: Gateway,
  session: DownstreamSession,
  wire: Transport,
  options: ChannelOptions,
): ServedChannel {
  const listens = new ListenTracker(gateway, session.sink, options.log);
  const held = new ListenGate(wire, listens);
  const gated = options.gate ? new SessionGate(held, { ...options.gate, transport: options.kind }) : held;
  // Kept by the session's RoutedTransport, which chains what was installed before it.
  gated.onclose = options.onClosed;
  const served = serveStdio(session.build, {
    transport: session.wrap(gated),
    onerror: (error) => options.log.debug(`${options.kind} session error`, { error: error.message }),
  });
  return {
    close: () => served.close(),
    cutOff: async (error) => {
      if (gated instanceof SessionGate) await gated.cutOff(error);
    },
  };
}
