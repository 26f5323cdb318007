import type { Transport } from '@modelcontextprotocol/client';

type RequestId = string | number;

/**
 * What a transport reports about inbound bytes it could not hand on as a message. The guard turns each
 * into a log line (rate-limited) and, when it spoiled one of our requests, that request's error.
 */
export interface InboundFaults {
  /**
   * A message over the size limit was discarded as it arrived; `id` when it could be read from it, and
   * `hasMethod` when it was the upstream's own request or notification rather than an answer.
   */
  oversized(id: RequestId | undefined, bytes: number, hasMethod?: boolean): void;
  /** Bytes that are no JSON-RPC message (a banner, a debug print, a truncated line); `where` names the channel. */
  unparsable(text: string, where: string): void;
  /** The upstream answered our request `id` outside JSON-RPC (e.g. an HTTP 500 page). */
  failed(id: RequestId, detail: string, data?: Record<string, unknown>): void;
  /**
   * The transport gave the connection up because of what the upstream sent (`detail` says what); its
   * requests in flight fail with the connection, and the upstream is reconnected.
   */
  abandoned?(detail: string): void;
  /**
   * Inbound messages over this many bytes are discarded as they arrive and reported as oversized
   * (`limits.maxResultBytes`, read live: a reload may change it).
   */
  maxBytes(): number;
}

/** A transport that reports its inbound faults (and bounds message size) when given somewhere to report them. */
export interface FaultReporting {
  faults?: InboundFaults;
}

/**
 * The one interface of every upstream transport: the SDK client's `Transport`, and inbound faults reported
 * to the guard (`guardInbound`) instead of closing the connection. Without `faults` a transport reports
 * them through `onerror` (or, for an HTTP exchange, the request's rejection).
 */
export type UpstreamClientTransport = Transport & FaultReporting;
