import type { IncomingMessage } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { createParser } from 'eventsource-parser';
import { ErrorCode } from '../../errors.js';
import type { StreamPosition } from './stream-resumption.js';

type RequestId = string | number;

/** Where the messages of an upstream's event stream go. */
export interface EventSink {
  deliver(message: JSONRPCMessage): void;
  /** An inbound request arrived on the stream answering our request `awaited`. */
  relate(inbound: RequestId, awaited: RequestId): void;
  error(error: Error): void;
  /** An event that is no JSON-RPC message was dropped. */
  unparsable(text: string): void;
  /** An event grew over `maxBytes()` and the stream was dropped; `id` is the request it answered, if any. */
  oversized(id: RequestId | undefined, bytes: number): void;
  /** Largest event kept (`limits.maxResultBytes`). */
  maxBytes(): number;
  /** Whether the transport was closed (a stream ending then is no failure). */
  closed(): boolean;
  /** The stream of `request` ended unanswered after an event id (`position`): the transport resumes it. */
  resume(request: JSONRPCMessage, position: StreamPosition): void;
}

/** The request whose response stream is read. */
export interface AwaitedRequest {
  /** The request itself (its id is what the stream answers). */
  request: JSONRPCMessage;
  /** Ends the stream on purpose (a modern request's per-request stream, a resumed stream's stop). */
  signal?: AbortSignal;
  /**
   * Where its streams stand (last event id, `retry`), for a request whose stream may be resumed (a 2025
   * session's, SEP-1699); without one, a stream that ends unanswered fails the request at once.
   */
  position?: StreamPosition;
}

/**
 * Reads one `text/event-stream` answer of the upstream: the stream of one of our requests (`awaited`), or
 * the session's GET stream. Calls `onEnd` when it ends, however it ends.
 */
export function consumeEvents(
  res: IncomingMessage,
  sink: EventSink,
  onEnd?: () => void,
  awaited?: AwaitedRequest,
): void {
  const awaitedId = (awaited?.request as { id?: RequestId } | undefined)?.id;
  const position = awaited?.position;
  const signal = awaited?.signal;
  // The SDK dispatches notifications asynchronously but responses at once; when a chunk holds
  // progress events and then the response, the response must wait a turn or it would retire the
  // request (and its progress handler) before the progress is seen.
  let notified = false;
  let answered = false;
  /** Bytes read since the last complete event: what the parser holds. */
  let pending = 0;
  const parser = createParser({
    onRetry: position
      ? (ms) => {
          position.retryMs = ms;
        }
      : undefined,
    onEvent: (event) => {
      pending = 0;
      if (position && event.id !== undefined) position.lastEventId = event.id;
      if (event.event !== undefined && event.event !== 'message') return;
      if (!event.data) return;
      let message: JSONRPCMessage;
      try {
        message = JSON.parse(event.data) as JSONRPCMessage;
      } catch {
        sink.unparsable(event.data);
        return;
      }
      if (position) position.messages += 1;
      if ('method' in message) {
        notified = true;
        const inbound = (message as { id?: RequestId }).id;
        if (inbound !== undefined && awaitedId !== undefined) sink.relate(inbound, awaitedId);
        sink.deliver(message);
        return;
      }
      if ((message as { id?: unknown }).id === awaitedId) answered = true;
      if (notified) {
        setImmediate(() => sink.deliver(message));
      } else {
        sink.deliver(message);
      }
    },
  });
  const ended = () => {
    if (awaited !== undefined && awaitedId !== undefined && !answered && !sink.closed() && !signal?.aborted) {
      answered = true;
      // A stream that ends unanswered after an event id may be resumed (SEP-1699: the server polls, or the
      // connection dropped); one that sent none is an upstream that died mid-request: the request fails
      // now instead of waiting for its timeout.
      if (position?.lastEventId !== undefined) sink.resume(awaited.request, position);
      else {
        setImmediate(() =>
          sink.deliver({
            jsonrpc: '2.0',
            id: awaitedId,
            error: {
              code: ErrorCode.UpstreamUnavailable,
              message: 'The upstream closed the response stream without answering.',
              data: { reason: 'upstream_unavailable' },
            },
          } as JSONRPCMessage),
        );
      }
    }
    onEnd?.();
  };
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    pending += Buffer.byteLength(chunk);
    parser.feed(chunk);
    // An event over the limit: the stream is dropped (memory stays bounded) and its request fails alone.
    if (pending > sink.maxBytes()) {
      answered = true;
      res.destroy();
      sink.oversized(awaitedId, pending);
    }
  });
  res.once('end', ended);
  res.once('error', ended);
  res.once('aborted', ended);
}
