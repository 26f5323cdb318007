import { describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../src/errors.js';
import { compose, type Middleware, type Outcome } from '../src/middleware.js';

interface Ctx {
  log: string[];
  value?: string;
}

const ok = (result: Record<string, unknown> = {}): Outcome => ({ ok: true, result });

/** A middleware that records when it is entered and left. */
function tracer(name: string): Middleware<Ctx> {
  return async (ctx, next) => {
    ctx.log.push(`${name}:in`);
    const outcome = await next();
    ctx.log.push(`${name}:out:${outcome.ok ? 'ok' : 'error'}`);
    return outcome;
  };
}

function errorOf(outcome: Outcome): GatewayError {
  if (outcome.ok) throw new Error(`expected an error outcome, got ${JSON.stringify(outcome.result)}`);
  return outcome.error;
}

describe('compose', () => {
  it('runs the terminal directly when there is no middleware', async () => {
    const terminal = vi.fn(async (ctx: Ctx) => ok({ log: ctx.log.length }));
    const run = compose<Ctx>([], terminal);
    expect(await run({ log: [] })).toEqual({ ok: true, result: { log: 0 } });
    expect(terminal).toHaveBeenCalledTimes(1);
  });

  it('nests layers like an onion, first middleware outermost', async () => {
    const run = compose<Ctx>([tracer('a'), tracer('b'), tracer('c')], async (ctx) => {
      ctx.log.push('terminal');
      return ok({ done: true });
    });
    const ctx: Ctx = { log: [] };
    expect(await run(ctx)).toEqual({ ok: true, result: { done: true } });
    expect(ctx.log).toEqual(['a:in', 'b:in', 'c:in', 'terminal', 'c:out:ok', 'b:out:ok', 'a:out:ok']);
  });

  it('passes the same context through, so outer changes are visible inside', async () => {
    const run = compose<Ctx>(
      [
        async (ctx, next) => {
          ctx.value = 'set by outer';
          return next();
        },
      ],
      async (ctx) => ok({ value: ctx.value }),
    );
    expect(await run({ log: [] })).toEqual({ ok: true, result: { value: 'set by outer' } });
  });

  it('lets a middleware short-circuit without calling next', async () => {
    const terminal = vi.fn(async () => ok({ from: 'terminal' }));
    const inner = vi.fn(tracer('inner'));
    const run = compose<Ctx>(
      [tracer('outer'), async () => ({ ok: false, error: new GatewayError(-32007, 'Forbidden') }), inner],
      terminal,
    );
    const ctx: Ctx = { log: [] };
    const outcome = await run(ctx);
    expect(errorOf(outcome).code).toBe(-32007);
    expect(terminal).not.toHaveBeenCalled();
    expect(inner).not.toHaveBeenCalled();
    expect(ctx.log).toEqual(['outer:in', 'outer:out:error']);
  });

  it('turns an error thrown by the terminal into an outcome every outer layer sees', async () => {
    const seen: Outcome[] = [];
    const observe: Middleware<Ctx> = async (_ctx, next) => {
      const outcome = await next();
      seen.push(outcome);
      return outcome;
    };
    const thrown = GatewayError.upstreamTimeout('docs', 'resources/read', 100);
    const run = compose<Ctx>([observe, observe], async () => {
      throw thrown;
    });
    const outcome = await run({ log: [] });
    expect(errorOf(outcome)).toBe(thrown);
    expect(seen).toHaveLength(2);
    for (const s of seen) expect(errorOf(s)).toBe(thrown);
  });

  it('maps non-gateway errors thrown anywhere to internal errors', async () => {
    const fromTerminal = await compose<Ctx>([tracer('a')], async () => {
      throw new Error('disk on fire');
    })({ log: [] });
    expect(errorOf(fromTerminal).code).toBe(-32603);
    expect(errorOf(fromTerminal).message).toContain('disk on fire');

    const ctx: Ctx = { log: [] };
    const fromMiddleware = await compose<Ctx>(
      [
        tracer('outer'),
        async () => {
          throw 'a string';
        },
      ],
      async () => ok(),
    )(ctx);
    expect(errorOf(fromMiddleware).reason).toBe('internal');
    expect(ctx.log).toEqual(['outer:in', 'outer:out:error']);
  });

  it('turns a middleware failing after next() into an error outcome for the outer layers', async () => {
    const ctx: Ctx = { log: [] };
    const run = compose<Ctx>(
      [
        tracer('outer'),
        async (_ctx, next) => {
          await next();
          throw GatewayError.invalidParams('rejected on the way out');
        },
      ],
      async () => ok(),
    );
    expect(errorOf(await run(ctx)).message).toBe('rejected on the way out');
    expect(ctx.log).toEqual(['outer:in', 'outer:out:error']);
  });

  it('gives every error outcome, thrown or returned, its form before the next layer out sees it', async () => {
    const seen: number[] = [];
    const observe: Middleware<Ctx> = async (_ctx, next) => {
      const outcome = await next();
      seen.push(errorOf(outcome).code);
      return outcome;
    };
    const recode = (error: GatewayError, ctx: Ctx) => {
      if (error.code === -32602) return new GatewayError(-32002, error.message, error.data);
      ctx.log.push('kept');
      return error;
    };
    const thrown = compose<Ctx>(
      [observe],
      async () => {
        throw GatewayError.resourceNotFound('x://y');
      },
      recode,
    );
    expect(errorOf(await thrown({ log: [] })).code).toBe(-32002);
    const returned = compose<Ctx>(
      [observe, async () => ({ ok: false, error: GatewayError.resourceNotFound('x://y') })],
      async () => ok(),
      recode,
    );
    expect(errorOf(await returned({ log: [] })).code).toBe(-32002);
    expect(seen).toEqual([-32002, -32002]);
    const ctx: Ctx = { log: [] };
    const other = GatewayError.forbidden('no');
    const untouched = await compose<Ctx>([], async () => ({ ok: false, error: other }), recode)(ctx);
    expect(errorOf(untouched)).toBe(other);
    expect(ctx.log).toEqual(['kept']);
  });

  it('lets an outer layer recover from an inner failure', async () => {
    const run = compose<Ctx>(
      [
        async (_ctx, next) => {
          const outcome = await next();
          return outcome.ok ? outcome : ok({ recovered: outcome.error.code });
        },
      ],
      async () => {
        throw GatewayError.upstreamUnavailable('docs');
      },
    );
    expect(await run({ log: [] })).toEqual({ ok: true, result: { recovered: -32003 } });
  });

  it('refuses a second next() call: it becomes an error outcome and inner layers run once', async () => {
    const terminal = vi.fn(async () => ok({ n: 1 }));
    const inner = vi.fn(tracer('inner'));
    const run = compose<Ctx>(
      [
        async (_ctx, next) => {
          await next();
          return next();
        },
        inner,
      ],
      terminal,
    );
    const outcome = await run({ log: [] });
    expect(errorOf(outcome).code).toBe(-32603);
    expect(errorOf(outcome).message).toMatch(/next\(\) called more than once/);
    expect(terminal).toHaveBeenCalledTimes(1);
    expect(inner).toHaveBeenCalledTimes(1);
  });

  it('refuses a second next() even when the first one is still running', async () => {
    const terminal = vi.fn(async () => ok());
    let second: unknown;
    const run = compose<Ctx>(
      [
        async (_ctx, next) => {
          const first = next();
          second = await next().then(
            () => 'resolved',
            (error: unknown) => error,
          );
          return first;
        },
      ],
      terminal,
    );
    expect(await run({ log: [] })).toEqual({ ok: true, result: {} });
    expect(second).toBeInstanceOf(Error);
    expect(terminal).toHaveBeenCalledTimes(1);
  });

  it('keeps runs independent: the composed function is reusable and concurrent-safe', async () => {
    const release: Array<() => void> = [];
    const run = compose<Ctx>([tracer('a')], (ctx) => {
      return new Promise<Outcome>((resolve) => {
        release.push(() => resolve(ok({ value: ctx.value })));
      });
    });
    const first = run({ log: [], value: 'one' });
    const second = run({ log: [], value: 'two' });
    await vi.waitFor(() => expect(release).toHaveLength(2));
    release[1]?.();
    release[0]?.();
    expect(await first).toEqual({ ok: true, result: { value: 'one' } });
    expect(await second).toEqual({ ok: true, result: { value: 'two' } });
    const third = run({ log: [], value: 'three' });
    await vi.waitFor(() => expect(release).toHaveLength(3));
    release[2]?.();
    expect(await third).toEqual({ ok: true, result: { value: 'three' } });
  });
});

describe('compose and InputRequired', () => {
  it('turns a layer that throws InputRequired into that input-required result, seen by the outer layers', async () => {
    const { InputRequired } = await import('../src/interaction/input-required.js');
    const terminal = vi.fn(async () => ok({ never: true }));
    const asking: Middleware<Ctx> = async () => {
      throw new InputRequired({ resultType: 'input_required', inputRequests: {}, requestState: 's' });
    };
    const ctx: Ctx = { log: [] };
    const outcome = await compose<Ctx>([tracer('outer'), asking], terminal)(ctx);
    expect(outcome).toEqual({
      ok: true,
      result: { resultType: 'input_required', inputRequests: {}, requestState: 's' },
    });
    expect(ctx.log).toEqual(['outer:in', 'outer:out:ok']);
    expect(terminal).not.toHaveBeenCalled();
  });
});

describe('compose and what a layer answers (found from outside: a plugin returning no result took the gateway down)', () => {
  it.each([
    ['{ ok: true } without a result', { ok: true }, /answered \{ ok: true \} with no result/],
    ['a result that is no object', { ok: true, result: 'str' }, /a result that is no object \(string\)/],
    ['an array result', { ok: true, result: [1] }, /a result that is no object \(object\)/],
    ['undefined', undefined, /answered undefined/],
    ['an object without ok', { result: {} }, /answered an object without ok/],
  ])('turns %s into an internal error outcome', async (_, answer, message) => {
    const run = compose<object>([async () => answer as never], async () => ({ ok: true, result: {} }));
    const outcome = await run({});
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(GatewayError);
    expect(outcome.error.code).toBe(-32603);
    expect(outcome.error.message).toMatch(message);
  });

  it('makes an error that is no GatewayError one, with a JSON-RPC code', async () => {
    const run = compose<object>(
      [async () => ({ ok: false, error: new Error('plain') }) as never],
      async () => ({
        ok: true,
        result: {},
      }),
    );
    const outcome = await run({});
    expect(outcome.ok === false && outcome.error).toBeInstanceOf(GatewayError);
    expect(outcome.ok === false && outcome.error.toJSON()).toMatchObject({
      code: -32603,
      message: expect.stringContaining('plain'),
    });
  });
});
