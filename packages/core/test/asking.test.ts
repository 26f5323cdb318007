import { describe, expect, it, vi } from 'vitest';
import type { DownstreamClient, RequestContext } from '../src/context.js';
import { AskFailed, type Question } from '../src/interaction/ask.js';
import { Asking } from '../src/interaction/asking.js';
import { InputRequired } from '../src/interaction/input-required.js';
import { RequestStateSeal } from '../src/interaction/request-state.js';

// A plugin's question to the caller (`ctx.ask`): asked on the stream in the legacy era; an input-required
// result answered by a retry on 2026-07-28, whose state is bound to the caller, request and parameters
// and spent once.

const QUESTION: Question = {
  key: 'approve',
  method: 'elicitation/create',
  params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
  timeoutMs: 1000,
};
const ELICITING = { elicitation: {} };

function request(
  client: DownstreamClient | undefined,
  args: Record<string, unknown> = { a: 1 },
  id = 'alice',
) {
  return {
    method: 'tools/call',
    params: { name: 'docs__drop', arguments: args },
    session: {
      id: 's1',
      transport: 'http',
      identity: { id, groups: [], anonymous: false },
      notify: async () => {},
    },
    identity: { id, groups: [], anonymous: false },
    signal: new AbortController().signal,
    notifyRelated: async () => {},
    state: new Map(),
    client,
    target: { kind: 'tool', upstream: 'docs', name: 'drop', exposed: 'docs__drop' },
  } satisfies RequestContext as RequestContext;
}

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  const now = { t: start };
  return { now: () => now.t, advance: (ms: number) => (now.t += ms) };
}

async function inputRequired(ask: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await ask.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputRequired);
  return (error as InputRequired).result;
}

describe('ctx.ask, legacy client', () => {
  it('asks on the stream and resolves with the answer', async () => {
    const request_ = vi.fn(async () => ({ action: 'accept' }));
    const asking = new Asking(new RequestStateSeal('s'));
    const ctx = asking.enter(request({ era: 'legacy', capabilities: ELICITING, request: request_ }));
    expect(await ctx.ask?.(QUESTION)).toEqual({ action: 'accept' });
    expect(request_).toHaveBeenCalledWith('elicitation/create', QUESTION.params, expect.anything());
  });

  it('refuses to ask a client without the capability, and times out a client that does not answer', async () => {
    const asking = new Asking(new RequestStateSeal('s'));
    const mute = asking.enter(request({ era: 'legacy', capabilities: { sampling: {} }, request: vi.fn() }));
    await expect(mute.ask?.(QUESTION)).rejects.toMatchObject({ reason: 'unsupported' });
    const silent = (_m: string, _p: unknown, { signal }: { signal?: AbortSignal }) =>
      new Promise<Record<string, unknown>>((_, reject) =>
        signal?.addEventListener('abort', () => reject(signal.reason)),
      );
    const slow = asking.enter(request({ era: 'legacy', capabilities: ELICITING, request: silent }));
    await expect(slow.ask?.({ ...QUESTION, timeoutMs: 20 })).rejects.toBeInstanceOf(AskFailed);
    await expect(slow.ask?.({ ...QUESTION, timeoutMs: 20 })).rejects.toMatchObject({ reason: 'timeout' });
  });
});

describe('ctx.ask, 2026-07-28 client', () => {
  const modern = (extra: Partial<DownstreamClient> = {}): DownstreamClient => ({
    era: 'modern',
    capabilities: ELICITING,
    ...extra,
  });

  it('puts the question as an input-required result; the retry carrying the answer gets it, the upstream call starts afresh', async () => {
    const asking = new Asking(new RequestStateSeal('s'));
    const first = await inputRequired(asking.enter(request(modern())).ask!(QUESTION));
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: { approve: { method: 'elicitation/create', params: QUESTION.params } },
      requestState: expect.any(String),
    });
    const retry = asking.enter(
      request(
        modern({
          requestState: String(first.requestState),
          inputResponses: { approve: { action: 'accept' } },
        }),
      ),
    );
    expect(retry.client?.requestState).toBeUndefined();
    expect(retry.client?.inputResponses).toBeUndefined();
    expect(await retry.ask!(QUESTION)).toEqual({ action: 'accept' });
  });

  it('refuses a state replayed, or sent with other arguments or by another caller; leaves upstream states alone', async () => {
    const seal = new RequestStateSeal('s');
    const asking = new Asking(seal);
    const first = await inputRequired(asking.enter(request(modern())).ask!(QUESTION));
    const answer = {
      requestState: String(first.requestState),
      inputResponses: { approve: { action: 'accept' } },
    };
    const invalid = { data: { reason: 'invalid_request_state' } };
    expect(() => asking.enter(request(modern(answer), { a: 2 }))).toThrow(expect.objectContaining(invalid));
    expect(() => asking.enter(request(modern(answer), { a: 1 }, 'mallory'))).toThrow(
      expect.objectContaining(invalid),
    );
    asking.enter(request(modern(answer)));
    expect(() => asking.enter(request(modern(answer)))).toThrow(/already answered/);

    const upstreamRound = seal.seal({
      upstream: 'docs',
      identity: 'alice',
      target: 'tools/call\u0000docs__drop',
    });
    const passing = asking.enter(request(modern({ requestState: upstreamRound })));
    expect(passing.client?.requestState).toBe(upstreamRound);
  });

  it('an answer that comes after the question timeoutMs is a timeout; a client without the capability is not asked', async () => {
    const time = clock();
    const asking = new Asking(new RequestStateSeal('s'), time.now);
    const first = await inputRequired(asking.enter(request(modern())).ask!(QUESTION));
    time.advance(1001);
    const late = asking.enter(
      request(
        modern({
          requestState: String(first.requestState),
          inputResponses: { approve: { action: 'accept' } },
        }),
      ),
    );
    await expect(late.ask!(QUESTION)).rejects.toMatchObject({ reason: 'timeout' });
    // A key that is also an object's inherited property is no answer.
    await inputRequired(asking.enter(request(modern())).ask!({ ...QUESTION, key: 'toString' }));
    const unable = asking.enter(request(modern({ capabilities: {} })));
    await expect(unable.ask!(QUESTION)).rejects.toMatchObject({ reason: 'unsupported' });
  });
});
