import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../src/errors.js';
import type { Outcome } from '../src/middleware.js';
import type { UpstreamCallMiddleware } from '../src/plugins/upstream-call.js';
import { GatewayStats } from '../src/stats/recorder.js';
import { testRequest } from '../src/testing.js';
import { callChain } from '../src/upstream/call-chain.js';

afterEach(() => {
  vi.useRealTimers();
});

type Params = Record<string, unknown> | undefined;

/** An upstream that records the params of every call that reaches it and answers with them. */
function upstream() {
  const sent: Params[] = [];
  const send = async (params: Params) => {
    sent.push(params);
    return { echoed: params ?? null };
  };
  return { sent, send };
}

/** A layer that records when it is entered and left, and what it saw. */
function tracer(name: string, log: string[]): UpstreamCallMiddleware {
  return async (call, next) => {
    log.push(`${name}>${JSON.stringify(call.params ?? null)}`);
    const outcome = await next();
    log.push(`${name}<${outcome.ok ? 'ok' : outcome.error.reason}`);
    return outcome;
  };
}

describe('upstream-call middleware (callChain, through compose)', () => {
  it('runs the layers as an onion, the first plugin outermost, around the send', async () => {
    const log: string[] = [];
    const { sent, send } = upstream();
    const chain = callChain([tracer('a', log), tracer('b', log)]);
    const request = testRequest('resources/read', { uri: 'docs+x://a' });
    await expect(chain('docs', 'resources/read', { uri: 'x://a' }, request, send)).resolves.toEqual({
      echoed: { uri: 'x://a' },
    });
    expect(log).toEqual(['a>{"uri":"x://a"}', 'b>{"uri":"x://a"}', 'b<ok', 'a<ok']);
    expect(sent).toEqual([{ uri: 'x://a' }]);
  });

  it('gives each layer the call: upstream, method, params and the request it serves', async () => {
    const seen: unknown[] = [];
    const chain = callChain([
      async (call, next) => {
        seen.push([call.upstream, call.method, call.params, call.request?.identity.id]);
        return next();
      },
    ]);
    const request = testRequest('tools/list', {}, { identity: { id: 'bob', groups: [], anonymous: false } });
    await chain('docs', 'tools/list', { cursor: 'c1' }, request, upstream().send);
    await chain('docs', 'tools/list', undefined, undefined, upstream().send);
    expect(seen).toEqual([
      ['docs', 'tools/list', { cursor: 'c1' }, 'bob'],
      ['docs', 'tools/list', undefined, undefined],
    ]);
  });

  it('sends the params a layer put in place before next(), to the inner layers and the upstream; the layer keeps its own', async () => {
    const log: string[] = [];
    const { sent, send } = upstream();
    let after: unknown;
    const chain = callChain([
      async (call, next) => {
        call.params = { ...call.params, limit: 10 };
        return next();
      },
      async (call, next) => {
        const given = call.params;
        call.params = { ...call.params, extra: true };
        const outcome = await next();
        after = [given, call.params];
        return outcome;
      },
      tracer('inner', log),
    ]);
    await chain('docs', 'tools/list', { cursor: 'c' }, undefined, send);
    expect(sent).toEqual([{ cursor: 'c', limit: 10, extra: true }]);
    expect(log[0]).toBe('inner>{"cursor":"c","limit":10,"extra":true}');
    expect(after).toEqual([
      { cursor: 'c', limit: 10 },
      { cursor: 'c', limit: 10, extra: true },
    ]);
  });

  it('turns a second next() into an error outcome the outer layer sees, without sending twice', async () => {
    const log: string[] = [];
    const { sent, send } = upstream();
    const chain = callChain([
      tracer('outer', log),
      async (_call, next) => {
        await next();
        return next();
      },
    ]);
    const error = await chain('docs', 'tools/list', {}, undefined, send).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe(-32603);
    expect((error as GatewayError).message).toMatch(/next\(\) called more than once/);
    expect(log).toEqual(['outer>{}', 'outer<internal']);
    expect(sent).toHaveLength(1);
  });

  it('turns what a layer or the send throws into an error outcome the outer layers see', async () => {
    const seen: (string | undefined)[] = [];
    const observe: UpstreamCallMiddleware = async (_call, next) => {
      const outcome = await next();
      seen.push(outcome.ok ? 'ok' : outcome.error.reason);
      return outcome;
    };
    const thrown = GatewayError.upstreamTimeout('docs', 'tools/call', 100);
    const failing = callChain([observe], undefined, undefined);
    await expect(
      failing('docs', 'tools/call', {}, undefined, async () => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    const refusing = callChain([
      observe,
      async () => {
        throw GatewayError.forbidden('no');
      },
    ]);
    await expect(refusing('docs', 'tools/call', {}, undefined, upstream().send)).rejects.toMatchObject({
      code: -32007,
    });
    const crashing = callChain([
      observe,
      async () => {
        throw new Error('bug');
      },
    ]);
    await expect(crashing('docs', 'tools/call', {}, undefined, upstream().send)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('bug'),
    });
    expect(seen).toEqual(['upstream_timeout', 'forbidden', 'internal']);
  });

  it('lets a layer return an error outcome, and recover from one, as values', async () => {
    const { sent, send } = upstream();
    const refusing = callChain([async () => ({ ok: false, error: GatewayError.forbidden('no') })]);
    await expect(refusing('docs', 'tools/call', {}, undefined, send)).rejects.toMatchObject({ code: -32007 });
    expect(sent).toHaveLength(0);
    const recovering = callChain([
      async (_call, next) => {
        const outcome = await next();
        return outcome.ok ? outcome : { ok: true, result: { recovered: outcome.error.code } };
      },
    ]);
    await expect(
      recovering('docs', 'tools/call', {}, undefined, async () => {
        throw GatewayError.upstreamUnavailable('docs');
      }),
    ).resolves.toEqual({ recovered: -32003 });
  });

  it('runs call.repeat(params) through the layers inside the caller (not outside it) and sends again', async () => {
    const log: string[] = [];
    const { sent, send } = upstream();
    const repeats: Outcome[] = [];
    const chain = callChain([
      tracer('outer', log),
      async (call, next) => {
        const first = await next();
        repeats.push(await call.repeat({ cursor: 'p2' }));
        repeats.push(await call.repeat({ cursor: 'p3' }));
        return first;
      },
      tracer('inner', log),
    ]);
    await expect(chain('docs', 'resources/list', {}, undefined, send)).resolves.toEqual({ echoed: {} });
    expect(sent).toEqual([{}, { cursor: 'p2' }, { cursor: 'p3' }]);
    expect(repeats).toEqual([
      { ok: true, result: { echoed: { cursor: 'p2' } } },
      { ok: true, result: { echoed: { cursor: 'p3' } } },
    ]);
    expect(log).toEqual([
      'outer>{}',
      'inner>{}',
      'inner<ok',
      'inner>{"cursor":"p2"}',
      'inner<ok',
      'inner>{"cursor":"p3"}',
      'inner<ok',
      'outer<ok',
    ]);
  });

  it('gives a repeat its own next() and the error outcomes of its run', async () => {
    let calls = 0;
    const chain = callChain([
      async (call, next) => {
        const first = await next();
        const again = await call.repeat({ page: 2 });
        return first.ok && !again.ok ? { ok: true, result: { second: again.error.reason } } : first;
      },
      async (_call, next) => {
        // Each run of this inner layer may call next() once: the repeat is a run of its own.
        calls += 1;
        const outcome = await next();
        return calls === 1 ? outcome : { ok: false, error: GatewayError.forbidden('second page') };
      },
    ]);
    await expect(chain('docs', 'resources/list', {}, undefined, upstream().send)).resolves.toEqual({
      second: 'forbidden',
    });
    expect(calls).toBe(2);
  });

  it('measures each send (repeats included) in the stats, without the time the layers take', async () => {
    // The clock is ours: a layer holding the call for 10 s of it shows in no measured send.
    vi.useFakeTimers({ toFake: ['performance'] });
    const stats = new GatewayStats();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chain = callChain(
      [
        async (call, next) => {
          await held;
          const first = await next();
          await call.repeat({ cursor: 'p2' });
          return first;
        },
      ],
      undefined,
      stats,
    );
    const pending = chain('docs', 'resources/list', {}, undefined, upstream().send);
    vi.advanceTimersByTime(10_000);
    release();
    await pending;
    const measured = stats.snapshot().upstreams.docs;
    expect(measured).toMatchObject({ calls: 2, errors: 0 });
    expect(measured?.p99Ms).toBe(0);
    await expect(
      callChain([], undefined, stats)('docs', 'tools/call', {}, undefined, async () => {
        throw GatewayError.upstreamUnavailable('docs');
      }),
    ).rejects.toMatchObject({ code: -32003 });
    expect(stats.snapshot().upstreams.docs).toMatchObject({ calls: 3, errors: 1 });
  });
});
