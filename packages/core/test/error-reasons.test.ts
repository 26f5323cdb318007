import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSink } from '../src/context.js';
import { defineErrorReasons, registeredErrorReason, registeredErrorReasons } from '../src/error-reasons.js';
import { CORE_ERROR_REASONS, GatewayError } from '../src/errors.js';
import { Gateway } from '../src/gateway.js';
import { silentLogger } from '../src/logger.js';
import { PluginError } from '../src/plugins/error.js';
import { setupPlugins } from '../src/plugins/host.js';
import { testRequest } from '../src/testing.js';
import { QuotaReasons, quota } from './support/quota-plugin.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

/** The PluginError a registration throws, or undefined when it is accepted. */
function refusal(owner: string, table: Parameters<typeof defineErrorReasons>[1]): PluginError | undefined {
  try {
    defineErrorReasons(owner, table);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).code).toBe('PLUGIN_INVALID_ERROR_REASON');
    expect((error as PluginError).plugin).toBe(owner);
    return error as PluginError;
  }
}

describe('defineErrorReasons', () => {
  it('registers a reason with its code and owner, and makes its errors', () => {
    const reasons = defineErrorReasons('@acme/a', {
      a_refused: { code: -32018, summary: 'refused by acme', httpStatus: 403 },
    });
    expect(reasons.a_refused).toMatchObject({ reason: 'a_refused', code: -32018, owner: '@acme/a' });
    expect(registeredErrorReason('a_refused')).toBe(reasons.a_refused);
    expect(registeredErrorReasons()).toContain(reasons.a_refused);
    const error = reasons.a_refused.error('Refused: ask acme.', { team: 'acme' });
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.toJSON()).toEqual({
      code: -32018,
      message: 'Refused: ask acme.',
      data: { team: 'acme', reason: 'a_refused' },
    });
  });

  it('accepts the same reason with the same code again (a module loaded twice), keeping the first owner', () => {
    const first = defineErrorReasons('@acme/b', { b_refused: { code: -32019, summary: 'b' } });
    const again = defineErrorReasons('@acme/b-copy', { b_refused: { code: -32019, summary: 'b' } });
    expect(again.b_refused).toBe(first.b_refused);
    expect(registeredErrorReason('b_refused')?.owner).toBe('@acme/b');
  });

  it('refuses a reason registered with another code, naming who has it', () => {
    defineErrorReasons('@acme/c', { c_refused: { code: -32017, summary: 'c' } });
    expect(refusal('@acme/other', { c_refused: { code: -32018, summary: 'c' } })?.message).toBe(
      '@acme/other cannot register error reason "c_refused": @acme/c registered it with code -32017; one reason has one code',
    );
    expect(registeredErrorReason('c_refused')?.code).toBe(-32017);
  });

  it("refuses core's own reasons, whatever the code", () => {
    for (const reason of ['forbidden', 'rate_limited', 'busy', 'upstream_unavailable']) {
      expect(CORE_ERROR_REASONS).toContain(reason);
      expect(refusal('@acme/d', { [reason]: { code: -32000, summary: '' } })?.message).toMatch(
        /core declares it already/,
      );
    }
  });

  it("refuses codes in the specification's range -32020..-32099", () => {
    for (const code of [-32020, -32021, -32042, -32099]) {
      expect(refusal('@acme/e', { e_refused: { code, summary: '' } })?.message).toMatch(
        /in -32020\.\.-32099, which the MCP specification reserves/,
      );
    }
    expect(registeredErrorReason('e_refused')).toBeUndefined();
  });

  it('refuses codes core has taken in -32000..-32019, and codes outside the range', () => {
    for (const code of [-32001, -32002, -32003, -32006, -32007, -32009, -32016]) {
      expect(refusal('@acme/f', { f_refused: { code, summary: '' } })?.message).toMatch(/one core has taken/);
    }
    for (const code of [-32100, -32768, -31999, 0, 1001, -32010.5]) {
      expect(refusal('@acme/f', { f_refused: { code, summary: '' } })).toBeInstanceOf(PluginError);
    }
    expect(registeredErrorReason('f_refused')).toBeUndefined();
  });

  it("accepts -32000 (a refusal before any upstream) and JSON-RPC's own codes", () => {
    const reasons = defineErrorReasons('@acme/g', {
      g_draining: { code: -32000, summary: 'refused' },
      g_bad_header: { code: -32600, summary: 'invalid request' },
      g_bad_argument: { code: -32602, summary: 'invalid params' },
    });
    expect(Object.keys(reasons)).toEqual(['g_draining', 'g_bad_header', 'g_bad_argument']);
  });

  it('registers nothing of a table with one bad reason, and refuses names that are not snake_case', () => {
    expect(
      refusal('@acme/h', {
        h_fine: { code: -32017, summary: '' },
        h_bad: { code: -32042, summary: '' },
      }),
    ).toBeInstanceOf(PluginError);
    expect(registeredErrorReason('h_fine')).toBeUndefined();
    for (const reason of ['Quota', 'quota-exceeded', '_quota', '']) {
      expect(refusal('@acme/h', { [reason]: { code: -32017, summary: '' } })?.message).toMatch(/snake_case/);
    }
  });
});

describe('an in-house plugin with a reason of its own (test/support/quota-plugin.ts)', () => {
  it('refuses with its registered code and reason through a gateway, core unedited', async () => {
    const server = new TestServer({ name: 'docs', resources: 2 });
    const { url } = await server.listenHttp();
    cleanup.push(() => server.close());
    const gateway = new Gateway({
      upstreams: [
        { name: 'docs', prefix: true, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } },
      ],
      plugins: await setupPlugins(
        [{ plugin: quota, options: { reads: 1 }, source: './quota-plugin.js' }],
        silentLogger,
      ),
      logger: silentLogger,
    });
    cleanup.push(() => gateway.close());
    await gateway.start();
    const session: SessionSink = {
      id: 's1',
      transport: 'memory',
      identity: { id: 'alice', groups: [], anonymous: false },
      notify: async () => {},
    };
    const read = () =>
      gateway.handle(testRequest('resources/read', { uri: 'docs+test://docs/r/0' }, { session }));
    expect((await read()).ok).toBe(true);
    const refused = await read();
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.toJSON()).toMatchObject({
      code: -32017,
      data: { reason: 'quota_exceeded', quota: 1 },
    });
    // Typed: the augmentation makes 'quota_exceeded' a GatewayErrorReason wherever the plugin is imported.
    expect(refused.error.reason === 'quota_exceeded').toBe(true);
    expect(registeredErrorReason('quota_exceeded')).toBe(QuotaReasons.quota_exceeded);
    // Registered with `refusal: true`: the status page counts it with the policy refusals.
    expect(gateway.stats.snapshot().refusals).toEqual({ quota_exceeded: 1 });
  });
});
