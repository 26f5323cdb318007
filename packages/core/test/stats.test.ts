import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RequestContext } from '../src/context.js';
import { GatewayError } from '../src/errors.js';
import { CACHE_STATUS_KEY } from '../src/state-keys.js';
import { CLIPPED_MARK, clipped, RECORDED_CHARS } from '../src/stats/clip.js';
import { GatewayStats } from '../src/stats/recorder.js';
import { RingBuffer } from '../src/stats/ring.js';
import { RequestSeries } from '../src/stats/series.js';
import { testRequest } from '../src/testing.js';

afterEach(() => vi.useRealTimers());

function ctx(method: string, state: [string, unknown][] = []): RequestContext {
  const identity = { id: 'alice', groups: [], anonymous: false };
  return {
    ...testRequest(
      method,
      { uri: 'docs+test://docs/r/0' },
      {
        session: { id: 's1', transport: 'http', identity, notify: async () => {} },
        state,
      },
    ),
    target: { kind: 'resource', upstream: 'docs', uri: 'test://docs/r/0', exposed: 'docs+test://docs/r/0' },
  };
}

describe('RingBuffer', () => {
  it('keeps the latest items, oldest first', () => {
    const ring = new RingBuffer<number>(3);
    for (const n of [1, 2, 3, 4, 5]) ring.push(n);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.size).toBe(3);
  });
});

describe('RequestSeries', () => {
  it('buckets requests by time and forgets buckets older than the window', () => {
    const series = new RequestSeries({ bucketMs: 1000, buckets: 3 });
    series.record(10_100, 4, false);
    series.record(10_900, 8, true);
    series.record(11_500, 2, false);
    expect(series.snapshot(11_600)).toEqual([
      { t: 9_000, requests: 0, errors: 0, latencyAvgMs: 0, latencyMaxMs: 0 },
      { t: 10_000, requests: 2, errors: 1, latencyAvgMs: 6, latencyMaxMs: 8 },
      { t: 11_000, requests: 1, errors: 0, latencyAvgMs: 2, latencyMaxMs: 2 },
    ]);
    // Three buckets later the slot of 10 000 is reused for 13 000: the old counts do not leak in.
    series.record(13_200, 1, false);
    const later = series.snapshot(13_300);
    expect(later.map((b) => [b.t, b.requests])).toEqual([
      [11_000, 1],
      [12_000, 0],
      [13_000, 1],
    ]);
  });
});

describe('GatewayStats', () => {
  it('counts requests, refusals, cache outcomes and upstream calls', async () => {
    // One clock reading for the whole test: three requests straddling a bucket's edge would land in two.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00.000Z'));
    const stats = new GatewayStats({ recent: 2 });
    stats.request(ctx('resources/read', [[CACHE_STATUS_KEY, 'miss']]), { ok: true, result: {} }, 5);
    stats.request(ctx('resources/read', [[CACHE_STATUS_KEY, 'hit']]), { ok: true, result: {} }, 1);
    stats.request(ctx('tools/call'), { ok: false, error: GatewayError.forbidden('no') }, 2);
    await stats.upstreamCall('docs', async () => 1);
    await expect(stats.upstreamCall('docs', async () => Promise.reject(new Error('down')))).rejects.toThrow();

    const s = stats.snapshot();
    expect(s.requests).toMatchObject({ total: 3, errors: 1 });
    expect(s.refusals).toEqual({ forbidden: 1 });
    expect(s.cache).toMatchObject({ hit: 1, miss: 1, hitRatio: 0.5 });
    expect(s.upstreams.docs).toMatchObject({ calls: 2, errors: 1 });
    expect(s.recent.map((r) => r.method)).toEqual(['tools/call', 'resources/read']);
    expect(s.recent[0]).toMatchObject({
      outcome: 'error',
      reason: 'forbidden',
      identity: 'alice',
      upstream: 'docs',
    });
    expect(s.series.buckets.at(-1)?.requests).toBe(3);
  });
});

describe('what the status page keeps of a request', () => {
  it('clips the strings the request chose, so 50 entries stay small whatever was sent', () => {
    // Found from outside: 50 reads of a 3 MB URI (under maxBodyBytes) made /admin/status 150 MB, 3–5 s of
    // blocked event loop per fetch, and the gateway's RSS ~1 GB.
    const stats = new GatewayStats();
    const huge = `docs+test://${'x'.repeat(3_000_000)}`;
    for (let i = 0; i < 50; i++) {
      const read = ctx('resources/read');
      read.target = undefined;
      read.params = { uri: huge };
      stats.request(read, { ok: false, error: GatewayError.forbidden('no') }, 1);
    }
    const unknown = ctx(`junk/${'m'.repeat(100_000)}`);
    unknown.target = undefined;
    // An upstream's error may carry any reason.
    const reason = 'r'.repeat(5000) as GatewayError['reason'];
    stats.request(unknown, { ok: false, error: new GatewayError(-32601, 'no', { reason }) }, 1);
    const s = stats.snapshot();
    expect(JSON.stringify(s).length).toBeLessThan(200_000);
    expect(s.recent[1]?.target).toBe(`${huge.slice(0, RECORDED_CHARS)}${CLIPPED_MARK}`);
    expect(s.recent[0]?.method).toHaveLength(RECORDED_CHARS + 1);
    expect(s.recent[0]?.reason).toHaveLength(RECORDED_CHARS + 1);
    // What is short stays as it was.
    stats.request(ctx('resources/read'), { ok: true, result: {} }, 1);
    expect(stats.snapshot().recent[0]).toMatchObject({
      method: 'resources/read',
      target: 'docs+test://docs/r/0',
    });
  });

  it('cuts before a surrogate pair rather than through it', () => {
    const text = `${'a'.repeat(RECORDED_CHARS - 1)}😀tail`;
    expect(clipped(text)).toBe(`${'a'.repeat(RECORDED_CHARS - 1)}${CLIPPED_MARK}`);
    expect(clipped('short')).toBe('short');
    expect(clipped('x'.repeat(RECORDED_CHARS))).toHaveLength(RECORDED_CHARS);
  });
});
