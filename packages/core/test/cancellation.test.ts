import { describe, expect, it, vi } from 'vitest';
import { Cancellation, cancellationOf, signalOf } from '../src/cancellation.js';
import { requestContext } from '../src/downstream/request-context.js';

const session = {
  id: 's',
  transport: 'memory' as const,
  identity: { id: 'a', groups: [], anonymous: true },
  notify: async () => {},
};

describe('Cancellation', () => {
  it('runs each listener once, in order, with the reason set, and none added after the abort', () => {
    const cancel = new Cancellation();
    const seen: string[] = [];
    const first = () => seen.push(`first:${String(cancel.reason)}`);
    cancel.addEventListener('abort', first);
    cancel.addEventListener('abort', first);
    cancel.addEventListener('abort', () => seen.push('second'));
    const removed = () => seen.push('removed');
    cancel.addEventListener('abort', removed);
    cancel.removeEventListener('abort', removed);
    cancel.abort('gone');
    cancel.abort('again');
    cancel.addEventListener('abort', () => seen.push('late'));
    expect(seen).toEqual(['first:gone', 'second']);
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('gone');
  });

  it('aborts with an AbortError by default, as AbortController does', () => {
    const cancel = new Cancellation();
    cancel.abort();
    expect(cancel.reason).toBeInstanceOf(DOMException);
    expect((cancel.reason as DOMException).name).toBe('AbortError');
  });

  it('keeps running listeners when one throws, and reports the failure later, as EventTarget does', () => {
    const cancel = new Cancellation();
    const ran: number[] = [];
    const later: (() => void)[] = [];
    const queue = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => later.push(task));
    try {
      cancel.addEventListener('abort', () => {
        throw new Error('listener failed');
      });
      cancel.addEventListener('abort', () => ran.push(2));
      expect(() => cancel.abort('x')).not.toThrow();
    } finally {
      queue.mockRestore();
    }
    expect(ran).toEqual([2]);
    expect(later).toHaveLength(1);
    expect(() => later[0]?.()).toThrow('listener failed');
  });

  it('makes one real AbortSignal on first use, which follows it before and after the abort', () => {
    const before = new Cancellation();
    const signal = before.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(before.signal).toBe(signal);
    before.abort('later');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('later');

    const after = new Cancellation();
    after.abort('earlier');
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe('earlier');
  });

  it('signalOf hands back a real signal as it is', () => {
    const controller = new AbortController();
    expect(signalOf(controller.signal)).toBe(controller.signal);
  });
});

describe('a request context', () => {
  const make = (signal: Cancellation | AbortSignal) =>
    requestContext({ method: 'tools/call', params: {}, session, signal, notifyRelated: async () => {} });

  it('makes ctx.signal only when read, one per request, aborted with the request', () => {
    const cancel = new Cancellation();
    const ctx = make(cancel);
    expect(cancellationOf(ctx)).toBe(cancel);
    const signal = ctx.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(ctx.signal).toBe(signal);
    cancel.abort('client cancelled');
    expect(signal.reason).toBe('client cancelled');
  });

  it('keeps its signal and its cancellation in a spread copy', () => {
    const cancel = new Cancellation();
    const copy = { ...make(cancel), method: 'other' };
    expect(cancellationOf(copy)).toBe(cancel);
    expect(copy.signal).toBeInstanceOf(AbortSignal);
    cancel.abort('x');
    expect(copy.signal.aborted).toBe(true);
  });

  it("uses the SDK's real signal as ctx.signal", () => {
    const controller = new AbortController();
    expect(make(controller.signal).signal).toBe(controller.signal);
  });

  it('a context made by hand (a plugin test) is watched through its signal', () => {
    const controller = new AbortController();
    const ctx = { ...make(controller.signal) };
    delete (ctx as Record<symbol, unknown>)[Object.getOwnPropertySymbols(ctx)[0] as symbol];
    expect(cancellationOf(ctx)).toBe(controller.signal);
  });
});
