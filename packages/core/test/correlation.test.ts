import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CallCorrelation } from '../src/upstream/correlation.js';
import type { RequestOrigin } from '../src/upstream/origin.js';

const origin = (sessionId: string): RequestOrigin => ({ sessionId, notify: async () => {} });

/** A correlation over a transport that only records, and a way to send one request through its layer. */
function correlation() {
  const c = new CallCorrelation();
  const layer = c.layer({} as Transport);
  let delivered = 0;
  const send = (id: number) =>
    layer.send!(
      { jsonrpc: '2.0', id, method: 'tools/call', params: {} } as JSONRPCMessage,
      undefined,
      async () => {},
    );
  const receive = (message: Record<string, unknown>) =>
    layer.receive!(message as JSONRPCMessage, undefined, () => {
      delivered += 1;
    });
  return { c, send, receive, delivered: () => delivered };
}

describe('CallCorrelation', () => {
  it('forgets a request when it is answered', async () => {
    const { c, send, receive } = correlation();
    const answered = c.track(origin('a'), () => send(1).then(() => new Promise((r) => setTimeout(r, 1))));
    expect([c.noted, c.inflight.length]).toEqual([1, 1]);
    receive({ jsonrpc: '2.0', id: 1, result: {} });
    expect(c.noted).toBe(0);
    await answered;
    expect(c.inflight).toEqual([]);
  });

  it('forgets a request given up without an answer (cancelled, timed out): the upstream never answers it', async () => {
    // Found from outside: each 2026-07-28 call whose client went away kept its request, response and
    // socket here (about 10 KiB) for the life of the upstream connection.
    const { c, send, receive, delivered } = correlation();
    let giveUp: (reason: Error) => void = () => {};
    const pending = c.track(origin('a'), () =>
      send(7).then(() => new Promise((_, reject) => (giveUp = reject))),
    );
    await Promise.resolve();
    expect(c.noted).toBe(1);
    giveUp(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    expect([c.noted, c.inflight.length]).toEqual([0, 0]);
    // A late answer still passes through (the SDK drops it: nobody waits for it any more).
    receive({ jsonrpc: '2.0', id: 7, result: {} });
    expect(delivered()).toBe(1);
  });
});
