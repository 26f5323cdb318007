import { GATEWAY_REQUEST_KEY, PluginError, setupPlugins, silentLogger } from '@switchyard/core';
import { testRequest } from '@switchyard/core/testing';
import { eventually } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import rateLimit from '../src/index.js';
import { METRICS } from '../src/metrics.js';
import {
  Cleanup,
  connectAs,
  ReadGate,
  RecordingMeter,
  rateLimitRecording,
  read,
  startGateway,
} from './support.js';

// A real Gateway in process, in front of a testkit upstream over real HTTP, with official SDK clients
// connected through in-memory sessions that carry an identity.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('perClient: one token bucket per identity', () => {
  it('lets an identity spend its burst, then answers rate_limited with retryAfterMs', async () => {
    const meter = new RecordingMeter();
    const { gateway, upstreams } = await startGateway(cleanup, [
      { plugin: rateLimitRecording(meter), options: { perClient: { requestsPerSecond: 0.05, burst: 2 } } },
    ]);
    const alice = await connectAs(cleanup, gateway, 'alice');
    await expect(read(alice, 0)).resolves.toMatchObject({ contents: [{ uri: 'docs+test://docs/r/0' }] });
    await expect(read(alice, 1)).resolves.toBeDefined();
    const error = await read(alice, 2).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32006, data: { reason: 'rate_limited', identity: 'alice' } });
    const retryAfterMs = (error as { data: { retryAfterMs: number } }).data.retryAfterMs;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(20_000);
    expect(String((error as Error).message)).toMatch(/retry after \d+ ms/);
    // The refused request never reached the upstream.
    expect(upstreams[0]!.stats.requests['resources/read']).toBe(2);
    expect(meter.total(METRICS.rejected, { kind: 'client' })).toBe(1);
  });

  it("charges nothing for the gateway's own request on a caller's behalf (tool search's listing)", async () => {
    const { gateway } = await startGateway(cleanup, [
      { plugin: rateLimit, options: { perClient: { requestsPerSecond: 0.05, burst: 1 } } },
    ]);
    const identity = { id: 'alice', groups: [], anonymous: false };
    const own = () =>
      gateway.handle(
        testRequest(
          'resources/read',
          { uri: 'docs+test://docs/r/0' },
          { identity, state: [[GATEWAY_REQUEST_KEY, true]] },
        ),
      );
    for (let i = 0; i < 3; i++) await expect(own()).resolves.toMatchObject({ ok: true });
    const alice = await connectAs(cleanup, gateway, 'alice');
    await expect(read(alice, 0)).resolves.toBeDefined();
    await expect(read(alice, 1)).rejects.toMatchObject({ code: -32006 });
  });

  it('keeps identities apart: another client still has its whole burst', async () => {
    const { gateway, upstreams } = await startGateway(cleanup, [
      { plugin: rateLimit, options: { perClient: { requestsPerSecond: 0.05, burst: 2 } } },
    ]);
    const alice = await connectAs(cleanup, gateway, 'alice');
    const bob = await connectAs(cleanup, gateway, 'bob');
    await read(alice, 0);
    await read(alice, 1);
    await expect(read(alice, 2)).rejects.toMatchObject({ code: -32006 });
    await expect(read(bob, 3)).resolves.toBeDefined();
    await expect(read(bob, 4)).resolves.toBeDefined();
    await expect(read(bob, 5)).rejects.toMatchObject({ code: -32006, data: { identity: 'bob' } });
    // A second session of the same identity shares its bucket.
    const alice2 = await connectAs(cleanup, gateway, 'alice');
    await expect(read(alice2, 6)).rejects.toMatchObject({ code: -32006, data: { identity: 'alice' } });
    expect(upstreams[0]!.stats.requests['resources/read']).toBe(4);
  });
});

describe('perUpstream: concurrency and a bounded queue per upstream', () => {
  it('refuses the call past maxQueue at once with upstream_busy while the others complete', async () => {
    const meter = new RecordingMeter();
    const gate = new ReadGate();
    const { gateway, upstreams } = await startGateway(cleanup, [
      { plugin: rateLimitRecording(meter), options: { perUpstream: { concurrency: 1, maxQueue: 2 } } },
      { plugin: gate.plugin },
    ]);
    const client = await connectAs(cleanup, gateway, 'alice');
    const queued = () =>
      meter.observe(METRICS.queued).get(JSON.stringify({ 'switchyard.upstream': 'docs' })) ?? 0;
    const first = read(client, 0);
    await eventually(() => gate.entered === 1, 'the first read to reach the upstream', 5_000);
    const waiting = [read(client, 1), read(client, 2)];
    await eventually(() => queued() === 2, 'two reads waiting', 5_000);
    // The fourth is refused while the first is still held upstream: it did not wait for a slot.
    await expect(read(client, 3)).rejects.toMatchObject({
      code: -32005,
      data: { reason: 'upstream_busy', upstream: 'docs', maxQueue: 2 },
    });
    expect(gate.entered).toBe(1);
    gate.open();
    const results = await Promise.all([first, ...waiting]);
    expect(results.map((r) => (r.contents[0] as { uri: string }).uri)).toEqual([
      'docs+test://docs/r/0',
      'docs+test://docs/r/1',
      'docs+test://docs/r/2',
    ]);
    expect(gate.maxInFlight).toBe(1);
    expect(upstreams[0]!.stats.requests['resources/read']).toBe(3);
    expect(meter.total(METRICS.rejected, { kind: 'upstream' })).toBe(1);
    expect(queued()).toBe(0);
  });

  it('never lets more than `concurrency` calls reach the upstream at once', async () => {
    const gate = new ReadGate();
    const { gateway, upstreams } = await startGateway(
      cleanup,
      [
        { plugin: rateLimit, options: { perUpstream: { concurrency: 2, maxQueue: 20 } } },
        { plugin: gate.plugin },
      ],
      [{ name: 'docs', resources: 10, latencyMs: 5 }],
    );
    const clients = await Promise.all(['a', 'b', 'c'].map((id) => connectAs(cleanup, gateway, id)));
    const reads = Array.from({ length: 12 }, (_, i) => read(clients[i % 3]!, i % 10));
    await eventually(() => gate.entered === 2, 'two reads in flight', 5_000);
    gate.open();
    await expect(Promise.all(reads)).resolves.toHaveLength(12);
    expect(gate.maxInFlight).toBe(2);
    expect(upstreams[0]!.stats.requests['resources/read']).toBe(12);
  });

  it('takes a cancelled queued read out of the queue and frees its place', async () => {
    const meter = new RecordingMeter();
    const gate = new ReadGate();
    const { gateway, upstreams } = await startGateway(cleanup, [
      { plugin: rateLimitRecording(meter), options: { perUpstream: { concurrency: 1, maxQueue: 1 } } },
      { plugin: gate.plugin },
    ]);
    const client = await connectAs(cleanup, gateway, 'alice');
    const queued = () =>
      meter.observe(METRICS.queued).get(JSON.stringify({ 'switchyard.upstream': 'docs' })) ?? 0;
    const first = read(client, 0);
    await eventually(() => gate.entered === 1, 'the first read to reach the upstream', 5_000);
    const controller = new AbortController();
    const cancelled = read(client, 1, { signal: controller.signal });
    await eventually(() => queued() === 1, 'the second read to wait', 5_000);
    await expect(read(client, 2)).rejects.toMatchObject({ code: -32005 });
    controller.abort();
    await expect(cancelled).rejects.toThrow();
    await eventually(() => queued() === 0, 'the cancelled read to leave the queue', 5_000);
    const next = read(client, 3);
    await eventually(() => queued() === 1, 'the next read to take the freed place', 5_000);
    gate.open();
    await expect(first).resolves.toBeDefined();
    await expect(next).resolves.toMatchObject({ contents: [{ uri: 'docs+test://docs/r/3' }] });
    // The cancelled read was never sent upstream.
    expect(upstreams[0]!.stats.requests['resources/read']).toBe(2);
  });

  it('applies per-server overrides, and keeps each upstream in its own queue', async () => {
    const gate = new ReadGate();
    const { gateway } = await startGateway(
      cleanup,
      [
        {
          plugin: rateLimit,
          options: { perUpstream: { concurrency: 1, maxQueue: 0 }, upstreams: { wiki: { concurrency: 2 } } },
        },
        { plugin: gate.plugin },
      ],
      [
        { name: 'docs', resources: 3 },
        { name: 'wiki', resources: 3 },
      ],
    );
    const client = await connectAs(cleanup, gateway, 'alice');
    const wiki = (i: number) =>
      client.request({ method: 'resources/read', params: { uri: `wiki+test://wiki/r/${i}` } });
    const held = [read(client, 0), wiki(0), wiki(1)];
    await eventually(() => gate.entered === 3, 'one docs read and two wiki reads in flight', 5_000);
    await expect(read(client, 1)).rejects.toMatchObject({
      data: { reason: 'upstream_busy', upstream: 'docs' },
    });
    await expect(wiki(2)).rejects.toMatchObject({ data: { reason: 'upstream_busy', upstream: 'wiki' } });
    gate.open();
    await expect(Promise.all(held)).resolves.toHaveLength(3);
  });

  it('fails waiting calls cleanly when the gateway closes', async () => {
    const meter = new RecordingMeter();
    const gate = new ReadGate();
    const { gateway } = await startGateway(cleanup, [
      { plugin: rateLimitRecording(meter), options: { perUpstream: { concurrency: 1, maxQueue: 4 } } },
      { plugin: gate.plugin },
    ]);
    const client = await connectAs(cleanup, gateway, 'alice');
    const first = read(client, 0).catch((e: unknown) => e);
    await eventually(() => gate.entered === 1, 'the first read to reach the upstream', 5_000);
    const waiting = read(client, 1).catch((e: unknown) => e);
    await eventually(() => meter.observe(METRICS.queued).size === 1, 'the second read to wait', 5_000);
    const closing = gateway.close();
    gate.open();
    await closing;
    expect(await waiting).toMatchObject({ data: { reason: 'upstream_unavailable' } });
    await first;
  });
});

describe('plugin setup', () => {
  it('refuses bad options at load with PLUGIN_INVALID_OPTIONS naming the option', async () => {
    const error = await setupPlugins(
      [{ plugin: rateLimit, options: { perClient: { requestsPerSecond: -1 } }, source: rateLimit.name }],
      silentLogger,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({ code: 'PLUGIN_INVALID_OPTIONS', plugin: rateLimit.name });
    expect((error as Error).message).toBe(
      'Plugin @switchyard/plugin-rate-limit: options.perClient.requestsPerSecond: expected a number greater than 0, got -1',
    );
  });

  it('adds only the hooks its options need', async () => {
    const [clientOnly] = await setupPlugins(
      [{ plugin: rateLimit, options: { perClient: { requestsPerSecond: 1 } }, source: rateLimit.name }],
      silentLogger,
    );
    expect(Object.keys(clientOnly!.hooks).sort()).toEqual(['close', 'request']);
    const [upstreamOnly] = await setupPlugins(
      [
        {
          plugin: rateLimit,
          options: { perUpstream: { concurrency: 1, maxQueue: 1 } },
          source: rateLimit.name,
        },
      ],
      silentLogger,
    );
    expect(Object.keys(upstreamOnly!.hooks).sort()).toEqual(['close', 'upstreamCall']);
  });
});
