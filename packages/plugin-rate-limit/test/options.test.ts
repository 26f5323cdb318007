import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CLIENTS, parseOptions } from '../src/options.js';
import { queueSettings } from '../src/upstream-queues.js';

describe('parseOptions', () => {
  it('applies defaults: burst = max(1, ceil(requestsPerSecond)), maxClients', () => {
    expect(parseOptions({ perClient: { requestsPerSecond: 2.5 } }).perClient).toEqual({
      requestsPerSecond: 2.5,
      burst: 3,
      maxClients: DEFAULT_MAX_CLIENTS,
    });
    expect(parseOptions({ perClient: { requestsPerSecond: 0.2 } }).perClient?.burst).toBe(1);
    expect(parseOptions({ perClient: { requestsPerSecond: 5, burst: 20 } }).perClient?.burst).toBe(20);
  });

  it('reads perUpstream and lets upstreams.<name> override it field by field', () => {
    const options = parseOptions({
      perUpstream: { concurrency: 4, maxQueue: 16, requestsPerSecond: 50 },
      upstreams: { docs: { concurrency: 1 }, slow: { maxQueue: 0, requestsPerSecond: 0.5 } },
    });
    expect(options.perClient).toBeUndefined();
    expect(options.perUpstream).toEqual({ concurrency: 4, maxQueue: 16, requestsPerSecond: 50 });
    expect(options.upstreams.get('docs')).toEqual({ concurrency: 1, maxQueue: 16, requestsPerSecond: 50 });
    expect(options.upstreams.get('slow')).toEqual({ concurrency: 4, maxQueue: 0, requestsPerSecond: 0.5 });
  });

  it('allows overrides alone when they are complete', () => {
    const options = parseOptions({ upstreams: { docs: { concurrency: 2, maxQueue: 3 } } });
    expect(options.perUpstream).toBeUndefined();
    expect(options.upstreams.get('docs')).toEqual({
      concurrency: 2,
      maxQueue: 3,
      requestsPerSecond: undefined,
    });
  });

  it.each([
    [undefined, /no limits configured: set perClient/],
    [{}, /no limits configured/],
    [[], /options must be an object with perClient, perUpstream, upstreams, got \[\]/],
    [{ perclient: {} }, /unknown option "perclient" \(known: perClient, perUpstream, upstreams\)/],
    [{ perClient: {} }, /option perClient\.requestsPerSecond must be a number greater than 0, got undefined/],
    [
      { perClient: { requestsPerSecond: 0 } },
      /perClient\.requestsPerSecond must be a number greater than 0, got 0/,
    ],
    [{ perClient: { requestsPerSecond: '5' } }, /perClient\.requestsPerSecond .* got "5"/],
    [{ perClient: { requestsPerSecond: 5, burst: 0.5 } }, /perClient\.burst must be an integer >= 1/],
    [{ perClient: { requestsPerSecond: 5, maxClients: 0 } }, /perClient\.maxClients must be an integer >= 1/],
    [{ perClient: { requestsPerSecond: 5, rps: 1 } }, /perClient has unknown key "rps"/],
    [{ perUpstream: { maxQueue: 1 } }, /perUpstream\.concurrency must be an integer >= 1, got undefined/],
    [{ perUpstream: { concurrency: 1 } }, /perUpstream\.maxQueue must be an integer >= 0, got undefined/],
    [
      { perUpstream: { concurrency: 0, maxQueue: 1 } },
      /perUpstream\.concurrency must be an integer >= 1, got 0/,
    ],
    [
      { perUpstream: { concurrency: 1, maxQueue: -1 } },
      /perUpstream\.maxQueue must be an integer >= 0, got -1/,
    ],
    [
      { perUpstream: { concurrency: 1, maxQueue: 1, requestsPerSecond: Number.POSITIVE_INFINITY } },
      /perUpstream\.requestsPerSecond must be a number greater than 0/,
    ],
    [{ upstreams: { docs: { maxQueue: 1 } } }, /upstreams\.docs\.concurrency must be an integer >= 1/],
    [
      { upstreams: { Docs: { concurrency: 1, maxQueue: 1 } } },
      /option upstreams\.Docs is not a server name .*: upstreams is keyed by server names/,
    ],
    [{ upstreams: [] }, /option upstreams must be an object keyed by server name/],
    [
      { perClient: { requestsPerSecond: 0 }, perUpstream: { concurrency: 0, maxQueue: 1 } },
      /perClient\.requestsPerSecond must be .*got 0\. option perUpstream\.concurrency must be/,
    ],
  ])('refuses %j with a message naming the option', (options, message) => {
    expect(() => parseOptions(options)).toThrow(message);
  });
});

describe('queueSettings', () => {
  it('maps requestsPerSecond to a sliding window with the exact average rate', () => {
    const limits = { concurrency: 3, maxQueue: 1 };
    expect(queueSettings({ ...limits, requestsPerSecond: undefined })).toEqual({ concurrency: 3 });
    expect(queueSettings({ ...limits, requestsPerSecond: 10 })).toEqual({
      concurrency: 3,
      intervalCap: 10,
      interval: 1_000,
      strict: true,
    });
    expect(queueSettings({ ...limits, requestsPerSecond: 0.5 })).toMatchObject({
      intervalCap: 1,
      interval: 2_000,
    });
    expect(queueSettings({ ...limits, requestsPerSecond: 2.5 })).toMatchObject({
      intervalCap: 2,
      interval: 800,
    });
  });
});
