import { PIN_QUARANTINED_KEY, SECRETS_FINDINGS_KEY } from '@switchyard/core';
import { testRequest } from '@switchyard/core/testing';
import { describe, expect, it } from 'vitest';
import { buildRecord } from '../src/record.js';

const observe = (state: [string, unknown][]) =>
  buildRecord({
    ctx: testRequest('tools/call', { name: 'docs__echo', arguments: { text: 'x' } }, { state }),
    outcome: { ok: true, result: { content: [] } },
    startedAt: 0,
    durationMs: 1,
    target: undefined,
    withArguments: false,
  });

describe('the secrets field', () => {
  it('records the rule names a secrets plugin left in the state, last', () => {
    const record = observe([[SECRETS_FINDINGS_KEY, ['aws', 'github']]]);
    expect(record.secrets).toEqual(['aws', 'github']);
    expect(Object.keys(record).at(-1)).toBe('secrets');
  });

  it('is absent when nothing was found, and keeps only names', () => {
    expect(observe([]).secrets).toBeUndefined();
    expect(observe([[SECRETS_FINDINGS_KEY, []]]).secrets).toBeUndefined();
    expect(observe([[SECRETS_FINDINGS_KEY, ['github', { not: 'a name' }]]]).secrets).toEqual(['github']);
  });
});

describe('the quarantined field', () => {
  it('records the names a pin plugin left in the state, and is absent without them', () => {
    expect(observe([[PIN_QUARANTINED_KEY, ['docs__a', 'docs__b']]]).quarantined).toEqual([
      'docs__a',
      'docs__b',
    ]);
    expect(observe([]).quarantined).toBeUndefined();
    expect(observe([[PIN_QUARANTINED_KEY, []]]).quarantined).toBeUndefined();
  });
});

// Found from outside: an inner plugin setting `ctx.params = null` lost the request's audit record.
describe('a request whose params an inner plugin replaced with null', () => {
  it.each(['tools/call', 'prompts/get', 'resources/read', 'completion/complete'])(
    'is still recorded (%s), without what the params would say',
    (method) => {
      const ctx = testRequest(method, { name: 'docs__echo', arguments: { text: 'x' } });
      (ctx as { params: unknown }).params = null;
      const record = buildRecord({
        ctx,
        outcome: { ok: true, result: { content: [] } },
        startedAt: 0,
        durationMs: 1,
        target: undefined,
        withArguments: true,
      });
      expect(record).toMatchObject({ method, outcome: 'ok' });
      expect(record).not.toHaveProperty('params');
      expect(record).not.toHaveProperty('tool');
    },
  );
});
