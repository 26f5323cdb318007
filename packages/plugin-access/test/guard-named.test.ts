import type { Identity, PluginGateway } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { gatewayView, guardFor, requestOf, throughGuard } from './guard-support.js';

// Tool and prompt cases a real gateway cannot easily produce: the last check on the upstream hop, and
// curated items in upstream pages. The gateway view is a stub that prefixes names with their server.

const bob: Identity = { id: 'bob', groups: [], anonymous: false };
const denyDrop = { default: 'allow' as const, rules: [{ effect: 'deny' as const, tools: ['docs__drop*'] }] };

describe('AccessGuard.upstreamCall on tools and prompts', () => {
  it('refuses a denied tool call on the upstream it reaches, without sending it', async () => {
    const { guard, counts } = guardFor(denyDrop);
    const request = requestOf(bob, 'tools/call', { name: 'docs__drop_table' });
    let sent = 0;
    const send = async () => {
      sent += 1;
      return { content: [] };
    };
    const call = { upstream: 'docs', method: 'tools/call', params: { name: 'drop_table' }, request };
    await expect(throughGuard(guard, call, send)).resolves.toMatchObject({
      ok: false,
      error: { code: -32007, data: { reason: 'forbidden', name: 'docs__drop_table' } },
    });
    expect(sent).toBe(0);
    expect(counts.denied).toBe(1);
    const allowed = { ...call, request: requestOf(bob, 'tools/call', { name: 'docs__select' }) };
    await expect(throughGuard(guard, allowed, send)).resolves.toEqual({ ok: true, result: { content: [] } });
    expect(sent).toBe(1);
  });

  it('decides on the upstream actually called, not only on the one the name suggests', async () => {
    const { guard } = guardFor({ default: 'allow', rules: [{ effect: 'deny', servers: ['secrets'] }] });
    const request = requestOf(bob, 'prompts/get', { name: 'summarize' });
    const call = { upstream: 'secrets', method: 'prompts/get', params: { name: 'summarize' }, request };
    await expect(throughGuard(guard, call, async () => ({}))).resolves.toMatchObject({
      ok: false,
      error: { code: -32007 },
    });
  });

  it('filters tools/list pages by exposed name, drops curated items, and skips pages it emptied', async () => {
    const curating: PluginGateway = {
      ...gatewayView,
      exposeName: (_kind, upstream, name) => (name.startsWith('hidden') ? undefined : `${upstream}__${name}`),
    };
    const { guard, counts } = guardFor(denyDrop, curating);
    const pages = [
      { tools: [{ name: 'drop_a' }, { name: 'hidden_x' }], nextCursor: 'p2' },
      { tools: [{ name: 'drop_b' }, { name: 'select' }, { name: 'hidden_y' }], nextCursor: 'p3' },
    ];
    const seen: unknown[] = [];
    const request = requestOf(bob, 'tools/list', {});
    const result = await throughGuard(
      guard,
      { upstream: 'docs', method: 'tools/list', params: {}, request },
      async (params) => {
        seen.push(params);
        return pages[seen.length - 1]!;
      },
    );
    expect(seen).toEqual([{}, { cursor: 'p2' }]);
    expect(result).toEqual({ ok: true, result: { tools: [{ name: 'select' }], nextCursor: 'p3' } });
    expect(counts.hidden).toBe(2); // the denied ones; curated items are the gateway's business
  });
});
