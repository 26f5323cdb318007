import type { Identity, UpstreamCall } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import type { AccessOptions } from '../src/index.js';
import { guardFor, requestOf } from './guard-support.js';

// Edge cases of list filtering that a real upstream cannot easily produce (an endless or cancelled
// listing): the upstream is a function answering pages, the gateway view a stub that prefixes names.

const bob: Identity = { id: 'bob', groups: [], anonymous: false };

function listCall(signal: AbortSignal = new AbortController().signal): UpstreamCall {
  const request = requestOf(bob, 'resources/list', {}, signal);
  return { upstream: 'docs', method: 'resources/list', params: {}, request };
}

/** An upstream whose every page holds one denied resource and points to a following page, forever. */
function endlessDeniedPages() {
  const cursors: unknown[] = [];
  const next = async (params?: Record<string, unknown>) => {
    cursors.push(params?.cursor);
    const n = cursors.length;
    return { resources: [{ uri: `test://docs/secret/${n}`, name: `s${n}` }], nextCursor: `c${n}` };
  };
  return { next, cursors };
}

describe('AccessGuard.upstreamCall', () => {
  const denySecrets: AccessOptions = {
    default: 'allow',
    rules: [{ effect: 'deny', uris: ['docs+test://docs/secret/**'] }],
  };

  it('fetches following pages with the upstream cursor until one keeps an item', async () => {
    const { guard, counts } = guardFor(denySecrets);
    const pages = [
      { resources: [{ uri: 'test://docs/secret/a' }], nextCursor: 'p2' },
      { resources: [{ uri: 'test://docs/secret/b' }, { uri: 'test://docs/secret/c' }], nextCursor: 'p3' },
      { resources: [{ uri: 'test://docs/secret/d' }, { uri: 'test://docs/open' }], nextCursor: 'p4' },
    ];
    const seen: unknown[] = [];
    const result = await guard.upstreamCall(listCall(), async (params) => {
      seen.push(params);
      return pages[seen.length - 1]!;
    });
    expect(seen).toEqual([undefined, { cursor: 'p2' }, { cursor: 'p3' }]);
    expect(result).toEqual({ resources: [{ uri: 'test://docs/open' }], nextCursor: 'p4' });
    expect(counts.hidden).toBe(4);
  });

  it('stops after maxSkippedPages and hands back an empty page with the cursor to resume from', async () => {
    const { guard } = guardFor({ ...denySecrets, maxSkippedPages: 3 });
    const upstream = endlessDeniedPages();
    const result = await guard.upstreamCall(listCall(), upstream.next);
    expect(upstream.cursors).toEqual([undefined, 'c1', 'c2', 'c3']);
    expect(result).toEqual({ resources: [], nextCursor: 'c4' });
  });

  it('stops fetching when the client cancels', async () => {
    const { guard } = guardFor(denySecrets);
    const controller = new AbortController();
    const upstream = endlessDeniedPages();
    const result = guard.upstreamCall(listCall(controller.signal), async (params) => {
      const page = await upstream.next(params);
      if (upstream.cursors.length === 2) controller.abort();
      return page;
    });
    await expect(result).rejects.toMatchObject({ data: { reason: 'cancelled' } });
    expect(upstream.cursors).toHaveLength(2);
  });

  it('returns an empty last page as is, and drops items without a URI', async () => {
    const { guard } = guardFor(denySecrets);
    const result = await guard.upstreamCall(listCall(), async () => ({
      resources: [{ uri: 'test://docs/secret/a' }, { name: 'no uri' }, 'junk'],
    }));
    expect(result).toEqual({ resources: [] });
  });

  it('passes gateway-internal calls and other methods through untouched', async () => {
    const { guard } = guardFor({ default: 'deny' });
    const page = { resources: [{ uri: 'test://docs/a' }] };
    const internal = { upstream: 'docs', method: 'resources/list', params: {} };
    expect(await guard.upstreamCall(internal, async () => page)).toBe(page);
    const read = { ...listCall(), method: 'resources/read' };
    expect(await guard.upstreamCall(read, async () => page)).toBe(page);
  });
});
