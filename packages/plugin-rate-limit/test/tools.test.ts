import type { Client } from '@modelcontextprotocol/client';
import { eventually } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { METRICS } from '../src/metrics.js';
import { Cleanup, connectAs, RecordingMeter, rateLimitRecording, read, startGateway } from './support.js';

// Tool calls and prompt gets are limited like reads: the same per-identity bucket, the same queue per
// upstream. A real Gateway in front of a testkit upstream over HTTP, official SDK clients in process.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const DOCS = { name: 'docs', resources: 3, tools: 2, prompts: 1, behaviorTools: true };

const callTool = (client: Client, name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } }, { signal });

describe('tool calls and prompt gets under the rate limits', () => {
  it('spend the caller’s bucket like reads, and a refused call never reaches the upstream', async () => {
    const meter = new RecordingMeter();
    const { gateway, upstreams } = await startGateway(
      cleanup,
      [{ plugin: rateLimitRecording(meter), options: { perClient: { requestsPerSecond: 0.05, burst: 4 } } }],
      [DOCS],
    );
    const alice = await connectAs(cleanup, gateway, 'alice');
    await expect(callTool(alice, 'docs__tool_0')).resolves.toMatchObject({
      structuredContent: { tool: 'tool_0' },
    });
    await expect(read(alice, 0)).resolves.toBeDefined();
    await expect(
      alice.request({ method: 'prompts/get', params: { name: 'docs__prompt_0' } }),
    ).resolves.toBeDefined();
    await expect(alice.request({ method: 'tools/list', params: {} })).resolves.toBeDefined();
    await expect(callTool(alice, 'docs__tool_1')).rejects.toMatchObject({
      code: -32006,
      data: { reason: 'rate_limited', identity: 'alice' },
    });
    expect(upstreams[0]!.stats.toolCalls).toEqual({ tool_0: 1 });
    expect(meter.total(METRICS.rejected, { kind: 'client' })).toBe(1);
    // Another identity has its own bucket for tools too.
    const bob = await connectAs(cleanup, gateway, 'bob');
    await expect(callTool(bob, 'docs__tool_1')).resolves.toBeDefined();
    expect(upstreams[0]!.stats.toolCalls).toEqual({ tool_0: 1, tool_1: 1 });
  });

  it('queue per upstream: a running tool holds its slot, the next call waits, one more is refused', async () => {
    const meter = new RecordingMeter();
    const { gateway, upstreams } = await startGateway(
      cleanup,
      [{ plugin: rateLimitRecording(meter), options: { perUpstream: { concurrency: 1, maxQueue: 1 } } }],
      [DOCS],
    );
    const docs = upstreams[0]!;
    const client = await connectAs(cleanup, gateway, 'alice');
    const queued = () =>
      meter.observe(METRICS.queued).get(JSON.stringify({ 'switchyard.upstream': 'docs' })) ?? 0;
    const cancel = new AbortController();
    cleanup.add(() => cancel.abort());
    const slow = callTool(client, 'docs__slow', { ms: 60_000 }, cancel.signal).catch((e: unknown) => e);
    await eventually(() => docs.stats.activeToolCalls === 1, 'the slow tool running upstream', 5_000);
    const waiting = callTool(client, 'docs__tool_0');
    await eventually(() => queued() === 1, 'the second call to wait for the slot', 5_000);
    await expect(read(client, 0)).rejects.toMatchObject({
      code: -32005,
      data: { reason: 'upstream_busy', upstream: 'docs', maxQueue: 1 },
    });
    expect(docs.stats.toolCalls).toEqual({ slow: 1 });
    // Cancelling the running tool frees the slot: the waiting call goes through.
    cancel.abort();
    await slow;
    await expect(waiting).resolves.toMatchObject({ structuredContent: { tool: 'tool_0' } });
    expect(docs.stats.toolCalls).toEqual({ slow: 1, tool_0: 1 });
    expect(meter.total(METRICS.rejected, { kind: 'upstream' })).toBe(1);
  });
});
