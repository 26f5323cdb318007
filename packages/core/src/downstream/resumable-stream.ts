import type { MessageExtraInfo } from '@modelcontextprotocol/server';

/**
 * The response stream of a downstream request whose client can resume it (a 2025-11-25 or later client
 * of a legacy Streamable HTTP session that accepts SSE): the gateway may close its connection mid-call,
 * as SEP-1699 lets a server, when the upstream serving the request does the same to the gateway.
 */
export interface ResumableStream {
  /**
   * Closes the connection that carries the stream now (a JSON answer becomes a primed stream first),
   * asking the client with an SSE `retry` field to wait `retryMs` (when given) before it resumes with
   * `GET` + `Last-Event-ID`; `resumed` runs when it does. What the request sends meanwhile waits in the
   * session's event store. Nothing happens once the request is answered.
   */
  close(retryMs: number | undefined, resumed: () => void): void;
}

/** What a session transport hands on with an inbound request whose response stream is resumable. */
export interface ResumableStreamInfo extends MessageExtraInfo {
  resumableStream?: ResumableStream;
}
