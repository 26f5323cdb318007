import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { LayeredTransport, type TransportLayer } from '../src/upstream/layered-transport.js';

/** A transport that records what it is sent and delivers what the test hands it. */
function fakeTransport(extra: Record<string, unknown> = {}) {
  const sent: JSONRPCMessage[] = [];
  const transport: Transport & Record<string, unknown> = {
    start: async () => {},
    close: async () => transport.onclose?.(),
    send: async (message) => void sent.push(message),
    ...extra,
  };
  return { transport, sent, deliver: (m: JSONRPCMessage) => transport.onmessage?.(m) };
}

const ping = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping' });

/** A layer that tags what passes it, both ways, in `trail`. */
function tagging(name: string, trail: string[]): TransportLayer {
  return {
    send: (message, options, next) => {
      trail.push(`send:${name}`);
      return next(message, options);
    },
    receive: (message, extra, deliver) => {
      trail.push(`receive:${name}`);
      deliver(message, extra);
    },
  };
}

describe('LayeredTransport', () => {
  it('sends from the outermost layer in and delivers from the innermost out', async () => {
    const { transport, sent, deliver } = fakeTransport();
    const trail: string[] = [];
    const layered = new LayeredTransport(transport, [tagging('inner', trail), tagging('outer', trail)]);
    const received: JSONRPCMessage[] = [];
    layered.onmessage = (m) => received.push(m);
    await layered.send(ping(1));
    deliver({ jsonrpc: '2.0', id: 1, result: {} });
    expect(trail).toEqual(['send:outer', 'send:inner', 'receive:inner', 'receive:outer']);
    expect(sent).toEqual([ping(1)]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('lets a layer hand in a message as if the transport had delivered it to that layer', () => {
    const { transport } = fakeTransport();
    const trail: string[] = [];
    let inject: ((m: JSONRPCMessage) => void) | undefined;
    const injecting: TransportLayer = { attach: (receive) => (inject = receive) };
    const layered = new LayeredTransport(transport, [injecting, tagging('outer', trail)]);
    const received: JSONRPCMessage[] = [];
    layered.onmessage = (m) => received.push(m);
    inject?.({ jsonrpc: '2.0', id: 7, error: { code: -32008, message: 'too large' } });
    expect(trail).toEqual(['receive:outer']);
    expect(received).toHaveLength(1);
  });

  it('is the transport itself for everything else: handlers, session id, versions, what marks stdio', async () => {
    const versions: string[] = [];
    const stdio = fakeTransport({
      stderr: null,
      pid: 42,
      setProtocolVersion: (v: string) => versions.push(v),
    });
    const layered = new LayeredTransport(stdio.transport, []);
    let closed = 0;
    layered.onclose = () => closed++;
    await layered.close();
    expect(closed).toBe(1);
    layered.setProtocolVersion?.('2025-11-25');
    expect(versions).toEqual(['2025-11-25']);
    // The SDK client tells stdio by `'stderr' in transport && 'pid' in transport`.
    expect('stderr' in layered && 'pid' in layered).toBe(true);
    expect((layered as unknown as { pid: number }).pid).toBe(42);

    const http = new LayeredTransport(fakeTransport({ sessionId: 's-1' }).transport, []);
    expect('stderr' in http || 'pid' in http).toBe(false);
    expect(http.sessionId).toBe('s-1');
    expect(http.setProtocolVersion).toBeUndefined();
    // No handler, nothing to deliver to: the transport's onmessage is cleared too.
    layered.onmessage = undefined;
    expect(stdio.transport.onmessage).toBeUndefined();
  });
});
