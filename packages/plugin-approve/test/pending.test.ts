import { MemoryStore, silentLogger } from '@switchyard/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApprovalBoard } from '../src/board.js';
import { ENDED_KEPT_MS, MAX_PENDING, PendingApprovals } from '../src/pending.js';

const call = {
  identity: 'alice',
  tool: 'db__drop',
  server: 'db',
  arguments: { table: 't' },
  digest: 'sha256:x',
  groups: ['leads'],
};
const lead = { id: 'lead', groups: ['leads'], anonymous: false };
const stranger = { id: 'eve', groups: ['other'], anonymous: false };

afterEach(() => vi.useRealTimers());

describe('PendingApprovals', () => {
  it('gives each held call an unguessable id, decided once by a member of its groups', async () => {
    const pending = new PendingApprovals();
    const board = new ApprovalBoard(pending, new MemoryStore(), silentLogger);
    await board.start();
    const held = pending.hold(call, 60_000, new AbortController().signal);
    const [approval] = board.visibleTo(lead, false);
    expect(approval?.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(board.visibleTo(stranger, false)).toEqual([]);
    expect(board.visibleTo(stranger, true)).toHaveLength(1);
    expect(await board.decide(approval!.id, 'approve', stranger, false)).toBe('forbidden');
    expect(await board.decide(approval!.id, 'approve', lead, false)).toBeUndefined();
    expect(await held).toEqual({ decision: 'approve', approver: 'lead' });
    // Deciding again says what happened, to those who could have decided it; to others it does not exist.
    expect(await board.decide(approval!.id, 'deny', lead, false)).toEqual({
      ended: { id: approval!.id, groups: ['leads'], outcome: 'approved', by: 'lead', at: expect.any(Number) },
    });
    expect(await board.decide(approval!.id, 'deny', stranger, false)).toBe('not_found');
    expect(await board.decide('never-held', 'deny', lead, true)).toBe('not_found');
    expect(pending.size).toBe(0);
  });

  it('remembers how a call stopped waiting (timed out, withdrawn) for a while, then forgets it', async () => {
    vi.useFakeTimers();
    const pending = new PendingApprovals();
    const board = new ApprovalBoard(pending, new MemoryStore(), silentLogger);
    const timedOut = pending.hold(call, 5000, new AbortController().signal);
    const [first] = board.all();
    vi.advanceTimersByTime(5000);
    await timedOut;
    expect(await board.decide(first!.id, 'approve', lead, false)).toMatchObject({
      ended: { outcome: 'timed_out' },
    });
    const caller = new AbortController();
    const withdrawn = pending.hold(call, 60_000, caller.signal);
    const [second] = board.all();
    caller.abort(new Error('cancelled'));
    await expect(withdrawn).resolves.toEqual({ decision: 'withdrawn' });
    expect(await board.decide(second!.id, 'approve', lead, false)).toMatchObject({
      ended: { outcome: 'withdrawn' },
    });
    vi.advanceTimersByTime(ENDED_KEPT_MS);
    expect(await board.decide(first!.id, 'approve', lead, false)).toBe('not_found');
    expect(await board.decide(second!.id, 'approve', lead, false)).toBe('not_found');
  });

  it('times out after timeoutMs and forgets the call; a caller that gives up forgets it too', async () => {
    vi.useFakeTimers();
    const pending = new PendingApprovals();
    const held = pending.hold(call, 5000, new AbortController().signal);
    vi.advanceTimersByTime(5000);
    expect(await held).toEqual({ decision: 'timeout' });
    expect(pending.size).toBe(0);
    const gone = new AbortController();
    const abandoned = pending.hold(call, 5000, gone.signal);
    gone.abort(new Error('cancelled'));
    await expect(abandoned).resolves.toEqual({ decision: 'withdrawn' });
    expect(pending.size).toBe(0);
  });

  it(`holds at most ${MAX_PENDING} calls; close denies every held one`, async () => {
    const pending = new PendingApprovals();
    const signal = new AbortController().signal;
    const held = Array.from({ length: MAX_PENDING }, () => pending.hold(call, 60_000, signal));
    expect(pending.hold(call, 60_000, signal)).toBeUndefined();
    pending.close();
    expect(await held[0]).toEqual({ decision: 'deny', approver: 'shutdown' });
    expect(pending.size).toBe(0);
  });
});
