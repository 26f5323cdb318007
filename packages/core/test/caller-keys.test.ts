import { describe, expect, it } from 'vitest';
import { interactiveCaller } from '../src/interaction/caller.js';
import { RequestStateSeal } from '../src/interaction/request-state.js';
import { SuspendedCalls } from '../src/interaction/suspended-call.js';
import { testRequest } from '../src/testing.js';
import type { UpstreamConnection } from '../src/upstream/connection.js';

// A 2026-07-28 upstream names the input requests of its input-required results; a 2025 client is asked
// each one, and the upstream retried with the answers under the same names, whatever they are.
describe('a modern upstream asking a legacy client', () => {
  it('answers input requests whose keys are Object.prototype members under those keys', async () => {
    const keys = ['__proto__', 'constructor', 'toString'];
    const sent: Record<string, unknown>[] = [];
    const upstream = {
      name: 'up',
      era: 'modern',
      config: { timeoutMs: 5_000 },
      hasLegacyPath: async () => false,
      request: async (_method: string, params: Record<string, unknown>) => {
        sent.push(params);
        if (params.inputResponses !== undefined) return { contents: [] };
        const ask = {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'ok?', requestedSchema: {} },
        };
        return { resultType: 'input_required', inputRequests: Object.fromEntries(keys.map((k) => [k, ask])) };
      },
    } as unknown as UpstreamConnection;
    const call = interactiveCaller({
      seal: new RequestStateSeal('secret'),
      suspended: new SuspendedCalls(60_000),
    });
    const ctx = testRequest(
      'resources/read',
      { uri: 'up+x://a' },
      {
        client: {
          era: 'legacy',
          capabilities: { elicitation: { form: {} } },
          request: async () => ({ action: 'accept', content: {} }),
        },
      },
    );
    expect(await call(ctx, upstream, { uri: 'x://a' })).toEqual({ contents: [] });
    const answers = sent[1]?.inputResponses as Record<string, unknown>;
    expect(Object.keys(answers).sort()).toEqual([...keys].sort());
    expect(JSON.parse(JSON.stringify(sent[1])).inputResponses).toEqual(
      JSON.parse(`{${keys.map((k) => `"${k}":{"action":"accept","content":{}}`).join(',')}}`),
    );
  });
});
