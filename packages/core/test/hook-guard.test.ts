import { describe, expect, it } from 'vitest';
import { GatewayError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import { compose, type Middleware, type Outcome } from '../src/middleware.js';
import { guardedHook } from '../src/plugins/hook-guard.js';
import { RateLimitedLog } from '../src/rate-limited-log.js';

// A plugin's hook held to the outcome contract where its answer becomes a value (found from outside: its
// codes reached clients unchanged, its exceptions' text too, unlogged and without naming it).

type Ctx = Record<string, never>;

function guarded(hook: Middleware<Ctx>, terminal: () => Promise<Outcome>) {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const log = {
    warn: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }),
  };
  const noise = new RateLimitedLog(log as unknown as Logger);
  const run = compose<Ctx>([guardedHook('acme', 'upstreamCall', hook, noise)], terminal);
  return { run: () => run({}), lines };
}

const errorOf = (outcome: Outcome) => (outcome.ok ? undefined : outcome.error);

describe('guardedHook', () => {
  it("passes next()'s outcome on as it is, whatever its code (an upstream's -32042 is the upstream's)", async () => {
    const upstream = new GatewayError(-32042, 'URL elicitation required', { elicitations: [] });
    const { run, lines } = guarded(
      async (_ctx, next) => {
        const outcome = await next();
        return outcome.ok ? outcome : { ok: false, error: outcome.error };
      },
      async () => ({ ok: false, error: upstream }),
    );
    expect(errorOf(await run())).toBe(upstream);
    expect(lines).toEqual([]);
  });

  it('fails an error whose data JSON cannot write, naming the plugin and the hook', async () => {
    const { run, lines } = guarded(
      async () => ({ ok: false, error: new GatewayError(-32000, 'x', { reason: 'forbidden', n: 1n }) }),
      async () => ({ ok: true, result: {} }),
    );
    expect(errorOf(await run())).toMatchObject({
      code: -32603,
      message: expect.stringContaining(
        "plugin acme's upstreamCall hook answered an error whose data JSON cannot write",
      ),
      data: { reason: 'internal', plugin: 'acme' },
    });
    expect(lines).toMatchObject([{ fields: { plugin: 'acme', hook: 'upstreamCall' } }]);
  });

  it('logs a throw once in a while per plugin and hook, with its text; the caller gets none of it', async () => {
    const { run, lines } = guarded(
      async () => {
        throw new Error('token=s3cret');
      },
      async () => ({ ok: true, result: {} }),
    );
    for (let i = 0; i < 3; i++) {
      const error = errorOf(await run());
      expect(error).toMatchObject({ code: -32603, data: { reason: 'internal', plugin: 'acme' } });
      expect(JSON.stringify(error?.toJSON())).not.toContain('s3cret');
    }
    expect(lines).toMatchObject([
      { message: 'plugin upstreamCall hook failed', fields: { plugin: 'acme', error: 'token=s3cret' } },
    ]);
  });

  it('keeps a GatewayError it threw, as if it had returned it', async () => {
    const { run } = guarded(
      async () => {
        throw GatewayError.forbidden('no');
      },
      async () => ({ ok: true, result: {} }),
    );
    expect(errorOf(await run())).toMatchObject({ code: -32007, data: { reason: 'forbidden' } });
  });

  it('passes on an error the plugin got from a repeat of the call, and a GatewayError of another core copy', async () => {
    const upstream = new GatewayError(-32042, 'URL elicitation required', {});
    const inner = compose<Ctx>([], async () => ({ ok: false, error: upstream }));
    const { run: repeated } = guarded(
      async () => inner({}),
      async () => ({ ok: true, result: {} }),
    );
    expect(errorOf(await repeated())).toBe(upstream);
    const foreign = Object.assign(new Error('quota'), {
      name: 'GatewayError',
      code: -32017,
      data: { reason: 'acme_quota' },
    });
    const { run: other } = guarded(
      async () => ({ ok: false, error: foreign as unknown as GatewayError }),
      async () => ({ ok: true, result: {} }),
    );
    expect(errorOf(await other())).toMatchObject({
      code: -32017,
      message: 'quota',
      data: { reason: 'acme_quota' },
    });
  });
});
