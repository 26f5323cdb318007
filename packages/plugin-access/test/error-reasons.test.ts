import { GatewayError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { guardFor, requestOf } from './guard-support.js';

const alice = { id: 'alice', groups: [], anonymous: false };

// An error's data.reason may be an upstream's own, passed through: the guard rewrites only the
// gateway's not-found answers, and leaves any other reason alone, whatever it is called.
describe('AccessGuard and the reasons of errors it passes', () => {
  it('passes an error whose reason is an Object.prototype member through unchanged', async () => {
    const { guard } = guardFor({ default: 'allow', rules: [] });
    for (const reason of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const error = new GatewayError(-32000, 'upstream says no', {
        reason: reason as never,
        upstream: 'docs',
      });
      const ctx = requestOf(alice, 'tools/call', { name: 'docs__tool_0', arguments: {} });
      expect(await guard.request(ctx, async () => ({ ok: false, error })), reason).toEqual({
        ok: false,
        error,
      });
    }
  });

  it('still answers the gateway not-found reasons without naming other tools', async () => {
    const { guard } = guardFor({ default: 'allow', rules: [] });
    const error = new GatewayError(-32602, 'Unknown tool docs__x; try docs__tool_1', {
      reason: 'tool_not_found',
      name: 'docs__x',
    });
    const ctx = requestOf(alice, 'tools/call', { name: 'docs__x' });
    const outcome = await guard.request(ctx, async () => ({ ok: false, error }));
    expect(outcome).toMatchObject({
      ok: false,
      error: { data: { reason: 'tool_not_found', name: 'docs__x' } },
    });
    expect(outcome.ok || outcome.error.message).not.toContain('tool_1');
  });
});
