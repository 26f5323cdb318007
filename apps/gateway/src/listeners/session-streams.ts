import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { EventStoreLimits, StreamLog } from './event-store.js';
import type { SseChannel } from './sse.js';
import type { RequestId } from './wire.js';

// The streams of one legacy HTTP session as SessionHttpTransport keeps them: each POST's exchange and the
// standalone GET stream, each the owner of its resumable events and of the connection reading them now.

export interface SessionHttpTransportOptions {
  /** Bounds of the session's resumable events (count, bytes, grace period of finished streams). */
  events?: EventStoreLimits;
  /** The `retry` a priming event asks clients to wait before they reconnect, in ms (default 1000). */
  retryMs?: number;
  /** Interval of keep-alive comments on open SSE connections (default 25 s). */
  keepAliveMs?: number;
  /**
   * A `tools/call` (2025-11-25 clients that accept SSE) still unanswered after this long becomes a
   * resumable stream (default 50 ms): quick calls keep the plain JSON answer, long ones can be resumed.
   */
  streamToolCallsAfterMs?: number;
}

/** The requests of one POST, and how their answers reach the client. */
export interface Exchange {
  kind: 'post';
  /** Ids of requests in this POST still waiting for their response. */
  waiting: Set<RequestId>;
  /** Responses collected while answering as JSON. */
  responses: JSONRPCMessage[];
  batch: boolean;
  acceptsSse: boolean;
  /** Some request of this POST got its response (the others may have been cancelled). */
  answered: boolean;
  /** The client's protocol version expects a priming event (2025-11-25 and later). */
  priming: boolean;
  /** The POST's own response, until it is answered or closed. */
  res: ServerResponse | undefined;
  /** Once the answer is an SSE stream: its resumable events. */
  log?: StreamLog<Owner>;
  /** The connection reading the stream now: the POST's response, or a GET that resumed it. */
  channel?: SseChannel;
  /** Turns a still-unanswered tool call into a stream. */
  streamTimer?: NodeJS.Timeout;
  /** Closed for polling (SEP-1699): what to run, per request, when the client resumes the stream. */
  resumed?: Map<RequestId, () => void>;
}

/** The session's standalone (GET) stream: unsolicited messages. */
export interface Standalone {
  kind: 'get';
  channel?: SseChannel;
}

export type Owner = Exchange | Standalone;
