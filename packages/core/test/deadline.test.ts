import { describe, expect, it } from 'vitest';
import { Cancellation, type CancelSignal } from '../src/cancellation.js';
import { Deadline, DeadlineExpired } from '../src/upstream/deadline.js';

describe('Deadline', () => {
  it("follows the caller's signal with the caller's reason, and is not expired by it", () => {
    const caller = new AbortController();
    const deadline = new Deadline(60_000);
    const signal = deadline.follow(caller.signal);
    caller.abort(new Error('client cancelled'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('client cancelled');
    expect(deadline.expired).toBe(false);
    deadline.finish();
  });

  it('is aborted at once when the caller already was', () => {
    const caller = new AbortController();
    caller.abort('gone');
    const deadline = new Deadline(60_000);
    expect(deadline.follow(caller.signal).reason).toBe('gone');
    deadline.finish();
  });

  it('expires with DeadlineExpired when the time runs out, even while following', async () => {
    const caller = new AbortController();
    const deadline = new Deadline(5);
    const signal = deadline.follow(caller.signal);
    await aborted(signal);
    expect(deadline.expired).toBe(true);
    expect(signal.reason).toBeInstanceOf(DeadlineExpired);
  });

  it('stops following once finished (a later abort of the caller reaches nothing)', () => {
    const caller = new AbortController();
    const deadline = new Deadline(60_000);
    const signal = deadline.follow(caller.signal);
    deadline.finish();
    caller.abort('late');
    expect(signal.aborted).toBe(false);
  });

  it('without a caller signal is just its own', () => {
    const deadline = new Deadline(60_000);
    expect(deadline.follow(undefined)).toBe(deadline.signal);
    deadline.finish();
  });
});

describe('Deadline sharing a cancellation', () => {
  it('aborts the cancellation it was given, and follows it without a listener', async () => {
    const abort = new Cancellation();
    const deadline = new Deadline(5, abort);
    expect(deadline.follow(abort)).toBe(abort);
    await aborted(abort.signal);
    expect(deadline.expired).toBe(true);
    expect(abort.reason).toBeInstanceOf(DeadlineExpired);
  });
});

function aborted(signal: CancelSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', resolve));
}
