import { expect, it } from 'vitest';
import { Cancellation } from '../src/cancellation.js';
import { SuspendedCall, SuspendedCalls } from '../src/interaction/suspended-call.js';

it('keeps at most perCaller calls of one caller waiting: the oldest is given up, other callers untouched', () => {
  // Found from outside: 150 input-required rounds a client never retried were all kept, each holding its
  // upstream call open for 10 minutes.
  const calls = new SuspendedCalls(60_000, 2);
  const made = () => {
    const abort = new Cancellation();
    return { call: new SuspendedCall(abort), abort };
  };
  const [a1, a2, a3, b1] = [made(), made(), made(), made()];
  calls.keep(a1.call, 'alice');
  calls.keep(b1.call, 'bob');
  calls.keep(a2.call, 'alice');
  expect(calls.size).toBe(3);
  calls.keep(a3.call, 'alice');
  expect(a1.abort.aborted).toBe(true);
  expect(String((a1.abort.reason as Error).message)).toMatch(/2 newer calls waiting/);
  expect(calls.take(a1.call.id)).toBeUndefined();
  expect([a2, a3, b1].map((c) => c.abort.aborted)).toEqual([false, false, false]);
  // A call taken back (its client retried) frees its place.
  expect(calls.take(a2.call.id)).toBe(a2.call);
  calls.keep(a2.call, 'alice');
  expect(a3.abort.aborted).toBe(false);
  calls.close();
  expect([a2, a3, b1].every((c) => c.abort.aborted)).toBe(true);
});
