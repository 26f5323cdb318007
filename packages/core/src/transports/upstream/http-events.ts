import type { IncomingMessage } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { createParser } from 'eventsource-parser';
import { ErrorCode } from '../../errors.js';

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
}

/**
 * Reads one `text/event-stream` answer of the upstream: the stream of one of our requests (`awaitedId`,
 * the request's `signal`), or the session's GET stream. Calls `onEnd` when it ends, however it ends.
 */
export function consumeEvents(
  res: IncomingMessage,
  sink: EventSink,
  onEnd?: () => void,
  awaitedId?: RequestId,
  signal?: AbortSignal,
): void {
  // The SDK dispatches notifications asynchronously but responses at once; when a chunk holds
  // progress events and then the response, the response must wait a turn or it would retire the
  // request (and its progress handler) before the progress is seen.
  let notified = false;
  let answered = false;
  /** Bytes read since the last complete event: what the parser holds. */
  let pending = 0;
  const parser = createParser({
    onEvent: (event) => {
      pending = 0;
      if (event.event !== undefined && event.event !== 'message') return;
      if (!event.data) return;
      let message: JSONRPCMessage;
      try {
        message = JSON.parse(event.data) as JSONRPCMessage;
      } catch {
        sink.unparsable(event.data);
        return;
      }
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
  // A request's stream that ends without its answer (the upstream died mid-request) fails the request
  // now instead of leaving it to the timeout.
  const ended = () => {
    if (awaitedId !== undefined && !answered && !sink.closed() && !signal?.aborted) {
      answered = true;
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
