import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { Drain } from '../src/listeners/drain.js';
import { httpStatusOf } from '../src/listeners/http-errors.js';
import { SessionQuota } from '../src/listeners/limits.js';
import { SessionGate } from '../src/listeners/session-gate.js';

describe('SessionQuota', () => {
  it('refuses per client with 429 and in total with 503; release is idempotent', () => {
    const quota = new SessionQuota({ sessions: 3, sessionsPerClient: 2 });
    const a1 = quota.claim('alice');
    const a2 = quota.claim('alice');
    const perClient = quota.claim('alice');
    expect(perClient).toMatchObject({
      ok: false,
      error: { code: -32000, data: { reason: 'too_many_sessions' } },
    });
    expect(!perClient.ok && httpStatusOf(perClient.error)).toBe(429);
    const b1 = quota.claim('bob');
    const total = quota.claim('carol');
    expect(!total.ok && httpStatusOf(total.error)).toBe(503);
    expect(quota.size).toBe(3);
    if (!a1.ok || !a2.ok || !b1.ok) throw new Error('claims should fit');
    a1.release();
    a1.release();
    expect(quota.size).toBe(2);
    expect(quota.claim('alice').ok).toBe(true);
  });
});

describe('httpStatusOf', () => {
  it('answers 200 for a reason the table does not have, whatever it is called', async () => {
    const { GatewayError } = await import('@switchyard/core');
    for (const reason of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'upstream_error']) {
      const error = new GatewayError(-32000, 'x', { reason } as never);
      expect(httpStatusOf(error), reason).toBe(200);
    }
    expect(httpStatusOf(new GatewayError(-32000, 'x', { reason: 'busy' }))).toBe(429);
  });
});

describe('Drain', () => {
  it('resolves with 0 once the requests in flight finish', async () => {
    const drain = new Drain();
    const done = drain.track();
    const begun = drain.begin(10_000);
    expect(drain.draining).toBe(true);
    done();
    done();
    await expect(begun).resolves.toBe(0);
    expect(drain.inFlight).toBe(0);
  });

  it('resolves with what is still running at the deadline', async () => {
    const drain = new Drain();
    drain.track();
    await expect(drain.begin(10)).resolves.toBe(1);
  });
});

/** An inner transport that records what the gate sends and lets a test deliver client messages. */
function fakeTransport() {
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = {
    start: async () => {},
    close: async () => inner.onclose?.(),
    send: async (message) => {
      sent.push(message);
    },
  };
  return { inner, sent, deliver: (message: unknown) => inner.onmessage?.(message as JSONRPCMessage) };
}

const request = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const reasonOf = (m: JSONRPCMessage | undefined) =>
  (m as { error?: { data?: { reason?: string } } } | undefined)?.error?.data?.reason;

describe('SessionGate', () => {
  it('refuses requests past the limit with busy until one is answered or cancelled', async () => {
    const drain = new Drain();
    const { inner, sent, deliver } = fakeTransport();
    const gate = new SessionGate(inner, { limit: 2, drain, transport: 'ws' });
    const seen: JSONRPCMessage[] = [];
    gate.onmessage = (m) => seen.push(m);
    await gate.start();
    deliver(request(1));
    deliver(request(2));
    deliver(request(3));
    expect(seen).toHaveLength(2);
    expect(sent[0]).toMatchObject({ id: 3, error: { code: -32000 } });
    expect(reasonOf(sent[0])).toBe('busy');
    expect(drain.inFlight).toBe(2);
    await gate.send({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage);
    deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    expect(gate.free).toBe(2);
    expect(drain.inFlight).toBe(0);
    // An id reused while its request is in flight holds one slot, not two.
    deliver(request(4));
    deliver(request(4));
    await gate.send({ jsonrpc: '2.0', id: 4, result: {} } as JSONRPCMessage);
    expect(drain.inFlight).toBe(0);
  });

  it('refuses requests while draining, and settles what is in flight when the transport closes', async () => {
    const drain = new Drain();
    const { inner, sent, deliver } = fakeTransport();
    const gate = new SessionGate(inner, { limit: 8, drain, transport: 'http' });
    await gate.start();
    deliver(request(1));
    const begun = drain.begin(10_000);
    deliver(request(2));
    expect(reasonOf(sent[0])).toBe('shutting_down');
    await gate.close();
    await expect(begun).resolves.toBe(0);
  });
});
