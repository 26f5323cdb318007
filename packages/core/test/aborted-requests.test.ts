import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { InFlightRequests } from '../src/downstream/in-flight.js';
import { type InboundTaker, RoutedTransport } from '../src/downstream/routed-transport.js';
import { GatewayError } from '../src/errors.js';
import { mapUpstreamError } from '../src/upstream/errors.js';

// A request aborted by the gateway itself (a transport that answered it as it closed, e.g. with
// `shutting_down` once the shutdown grace period ran out) ends as that error, not as the client's
// cancellation: the audit record and the response hooks see what the client got.

// The listeners' `shutting_down` is the app's reason; core's own `session_not_found` (a session deleted
// under its requests) is answered and aborted the same way.
const sessionClosed = new GatewayError(
  -32001,
  'Session not found: the session was closed before this request was answered',
  {
    reason: 'session_not_found',
  },
);

describe('a request the gateway aborted', () => {
  it('ends as the GatewayError it was aborted with; any other abort is the client cancelling', () => {
    expect(GatewayError.aborted('tools/call', sessionClosed)).toBe(sessionClosed);
    expect(GatewayError.aborted('tools/call', new Error('Connection closed'))).toMatchObject({
      code: -32603,
      data: { reason: 'cancelled' },
    });
    expect(GatewayError.aborted('tools/call', undefined)).toMatchObject({ data: { reason: 'cancelled' } });
  });

  it('an upstream call aborted so fails with that error', () => {
    const inFlight = new InFlightRequests();
    const answered = inFlight.begin(1);
    const cancelled = inFlight.begin(2);
    inFlight.cancel({ requestId: 2, reason: 'user stopped' });
    inFlight.abortAll(sessionClosed);
    const upstream = (signal: typeof answered) =>
      mapUpstreamError(new Error('This operation was aborted'), {
        upstream: 'up',
        method: 'tools/call',
        signal,
        timeoutMs: 30_000,
      });
    expect(upstream(answered)).toBe(sessionClosed);
    expect(upstream(cancelled)).toMatchObject({ code: -32603, data: { reason: 'cancelled' } });
    const closed = new InFlightRequests();
    const plain = closed.begin(1);
    closed.abortAll();
    expect(upstream(plain)).toMatchObject({ data: { reason: 'cancelled' } });
  });

  it('the routed transport tells its takers what the closing transport answered (closedWith)', async () => {
    const inner: Transport & { closedWith?: GatewayError } = {
      start: async () => {},
      send: async (_: JSONRPCMessage) => {},
      close: async () => {
        inner.closedWith = sessionClosed;
        inner.onclose?.();
      },
    };
    const heard: (GatewayError | undefined)[] = [];
    const taker: InboundTaker = { take: () => false, closed: (answered) => heard.push(answered) };
    const routed = new RoutedTransport(inner, [taker]);
    await routed.start();
    await routed.close();
    expect(heard).toEqual([sessionClosed]);
  });
});
