import { validateOptions } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CLIENTS, rateLimitOptions } from '../src/options.js';
import { queueSettings } from '../src/upstream-queues.js';

/** The options as the plugin host hands them to setup (an entry without options gets `{}`). */
const parseOptions = (options: unknown) =>
  validateOptions('@switchyard/plugin-rate-limit', rateLimitOptions, options ?? {});

describe('rateLimitOptions', () => {
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
    [undefined, /: options: no limits configured: set perClient/],
    [{}, /: options: no limits configured/],
    [[], /: options: expected an object with perClient, perUpstream, upstreams$/],
    [{ perclient: {} }, /: options\.perclient: unknown option \(known: perClient, perUpstream, upstreams\);/],
    [
      { perClient: {} },
      /: options\.perClient\.requestsPerSecond: expected a number greater than 0, got nothing$/,
    ],
    [
      { perClient: { requestsPerSecond: 0 } },
      /: options\.perClient\.requestsPerSecond: expected a number greater than 0, got 0$/,
    ],
    [{ perClient: { requestsPerSecond: '5' } }, /options\.perClient\.requestsPerSecond: .*, got "5"$/],
    [
      { perClient: { requestsPerSecond: 5, burst: 0.5 } },
      /options\.perClient\.burst: expected an integer >= 1, got 0\.5$/,
    ],
    [
      { perClient: { requestsPerSecond: 5, maxClients: 0 } },
      /options\.perClient\.maxClients: expected an integer >= 1/,
    ],
    [
      { perClient: { requestsPerSecond: 5, rps: 1 } },
      /options\.perClient\.rps: unknown key \(known: requestsPerSecond, burst, maxClients\)$/,
    ],
    [
      { perUpstream: { maxQueue: 1 } },
      /options\.perUpstream\.concurrency: expected an integer >= 1, got nothing$/,
    ],
    [
      { perUpstream: { concurrency: 1 } },
      /options\.perUpstream\.maxQueue: expected an integer >= 0, got nothing$/,
    ],
    [
      { perUpstream: { concurrency: 0, maxQueue: 1 } },
      /options\.perUpstream\.concurrency: expected an integer >= 1, got 0$/,
    ],
    [
      { perUpstream: { concurrency: 1, maxQueue: -1 } },
      /options\.perUpstream\.maxQueue: expected an integer >= 0, got -1$/,
    ],
    [
      { perUpstream: { concurrency: 1, maxQueue: 1, requestsPerSecond: Number.POSITIVE_INFINITY } },
      /options\.perUpstream\.requestsPerSecond: expected a number greater than 0/,
    ],
    [
      { upstreams: { docs: { maxQueue: 1 } } },
      /options\.upstreams\.docs\.concurrency: expected an integer >= 1 \(here, or in perUpstream\), got nothing$/,
    ],
    [
      { upstreams: { Docs: { concurrency: 1, maxQueue: 1 } } },
      /options\.upstreams\.Docs: is not a server name .*: upstreams is keyed by server names/,
    ],
    [{ upstreams: [] }, /options\.upstreams: expected an object keyed by server name, got \[\]$/],
    [
      { perClient: { requestsPerSecond: 0 }, perUpstream: { concurrency: 0, maxQueue: 1 } },
      /options\.perClient\.requestsPerSecond: .*got 0; options\.perUpstream\.concurrency: expected/,
    ],
  ])('refuses %j with a message naming the plugin and the option', (options, message) => {
    expect(() => parseOptions(options)).toThrow(/^Plugin @switchyard\/plugin-rate-limit: options/);
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
