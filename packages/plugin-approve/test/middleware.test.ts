import type { RequestContext } from '@switchyard/core';
import { silentLogger, validateOptions } from '@switchyard/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolAnnotations } from '../src/annotations.js';
import { ApprovedContinuations } from '../src/continuations.js';
import { approveMiddleware, HELD_PROGRESS_MS } from '../src/middleware.js';
import { approveOptionsSchema } from '../src/options.js';
import { PendingApprovals } from '../src/pending.js';

afterEach(() => vi.useRealTimers());

const options = validateOptions('approve', approveOptionsSchema, {
  timeoutMs: 60_000,
  rules: [{ tools: ['db__drop_*'], by: ['leads'] }],
});

/** A held call of db__drop_table by a caller that asked for progress. */
function heldCall(pending: PendingApprovals) {
  const progress: { progress: number; message?: string }[] = [];
  const ctx = {
    method: 'tools/call',
    params: { name: 'db__drop_table', arguments: { table: 't' } },
    identity: { id: 'alice', groups: [], anonymous: false },
    target: { kind: 'tool', upstream: 'db', name: 'drop_table', exposed: 'db__drop_table' },
    state: new Map(),
    signal: new AbortController().signal,
    onProgress: (p: { progress: number; message?: string }) => progress.push(p),
  } as unknown as RequestContext;
  const middleware = approveMiddleware({
    options,
    annotations: new ToolAnnotations(),
    pending,
    continuations: new ApprovedContinuations(),
    log: silentLogger,
  });
  const outcome = middleware(ctx, async () => ({ ok: true, result: { content: [] } }));
  return { outcome, progress };
}

describe('a call held for an approver group', () => {
  it('reports progress while it waits (a client resetting its timeout on progress keeps waiting), then stops', async () => {
    vi.useFakeTimers();
    const pending = new PendingApprovals();
    const { outcome, progress } = heldCall(pending);
    await vi.advanceTimersByTimeAsync(0);
    expect(progress).toEqual([
      {
        progress: 0,
        message: expect.stringMatching(/^Waiting for approval by a member of leads \(id \S+\)$/),
      },
    ]);
    await vi.advanceTimersByTimeAsync(HELD_PROGRESS_MS * 2);
    expect(progress.map((p) => p.progress)).toEqual([0, 15, 30]);
    expect(progress[2]?.message).toMatch(/30 s so far, 30 s left$/);
    const [approval] = pending.all();
    pending.settle(approval!.id, 'approve', 'lead');
    expect(await outcome).toMatchObject({ ok: true });
    await vi.advanceTimersByTimeAsync(HELD_PROGRESS_MS * 2);
    expect(progress).toHaveLength(3);
  });
});
