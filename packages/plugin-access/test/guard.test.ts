import type { Identity, UpstreamCall } from '@switchyard/core';
import { runUpstreamCall } from '@switchyard/core/testing';
import { describe, expect, it } from 'vitest';
import type { AccessOptions } from '../src/index.js';
import { guardFor, requestOf, throughGuard } from './guard-support.js';

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
    const result = await throughGuard(guard, listCall(), async (params) => {
      seen.push(params);
      return pages[seen.length - 1]!;
    });
    expect(seen).toEqual([{}, { cursor: 'p2' }, { cursor: 'p3' }]);
    expect(result).toEqual({
      ok: true,
      result: { resources: [{ uri: 'test://docs/open' }], nextCursor: 'p4' },
    });
    expect(counts.hidden).toBe(4);
  });

  it('fetches each following page through the layers inside it (each with its own next())', async () => {
    const { guard } = guardFor({ ...denySecrets, maxSkippedPages: 2 });
    const upstream = endlessDeniedPages();
    const inner: unknown[] = [];
    const outcome = await runUpstreamCall(
      [
        (call, next) => guard.upstreamCall(call, next),
        async (call, next) => {
          inner.push(call.params?.cursor);
          return next();
        },
      ],
      listCall(),
      (sent) => upstream.next(sent.params),
    );
    expect(inner).toEqual([undefined, 'c1', 'c2']);
    expect(upstream.cursors).toEqual([undefined, 'c1', 'c2']);
    expect(outcome).toEqual({ ok: true, result: { resources: [], nextCursor: 'c3' } });
  });

  it('stops after maxSkippedPages and hands back an empty page with the cursor to resume from', async () => {
    const { guard } = guardFor({ ...denySecrets, maxSkippedPages: 3 });
    const upstream = endlessDeniedPages();
    const result = await throughGuard(guard, listCall(), upstream.next);
    expect(upstream.cursors).toEqual([undefined, 'c1', 'c2', 'c3']);
    expect(result).toEqual({ ok: true, result: { resources: [], nextCursor: 'c4' } });
  });

  it('stops fetching when the client cancels', async () => {
    const { guard } = guardFor(denySecrets);
    const controller = new AbortController();
    const upstream = endlessDeniedPages();
    const result = throughGuard(guard, listCall(controller.signal), async (params) => {
      const page = await upstream.next(params);
      if (upstream.cursors.length === 2) controller.abort();
      return page;
    });
    await expect(result).resolves.toMatchObject({ ok: false, error: { data: { reason: 'cancelled' } } });
    expect(upstream.cursors).toHaveLength(2);
  });

  it('returns an empty last page as is, and drops items without a URI', async () => {
    const { guard } = guardFor(denySecrets);
    const result = await throughGuard(guard, listCall(), async () => ({
      resources: [{ uri: 'test://docs/secret/a' }, { name: 'no uri' }, 'junk'],
    }));
    expect(result).toEqual({ ok: true, result: { resources: [] } });
  });

  it('passes gateway-internal calls and other methods through untouched', async () => {
    const { guard } = guardFor({ default: 'deny' });
    const page = { resources: [{ uri: 'test://docs/a' }] };
    const internal = { upstream: 'docs', method: 'resources/list', params: {} };
    expect(await throughGuard(guard, internal, async () => page)).toEqual({ ok: true, result: page });
    const read = { ...listCall(), method: 'resources/read' };
    const outcome = await throughGuard(guard, read, async () => page);
    expect(outcome.ok && outcome.result).toBe(page);
  });
});
