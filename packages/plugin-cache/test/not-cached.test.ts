import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connect,
  eventually,
  gatewayWith,
  handleRead,
  identity,
  manualGate,
  readText,
  upstream,
} from './support.js';

// What the cache never keeps: tool calls, prompt gets, and multi round-trip (input-required) reads,
// through a real Gateway in front of testkit upstreams over HTTP.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const alice = identity('alice');
const bob = identity('bob');
const R0 = 'docs+test://docs/r/0';

async function docs() {
  const up = await upstream(cleanup, { name: 'docs', resources: 2, tools: 1, prompts: 1 });
  const h = await gatewayWith(cleanup, [{ name: 'docs', url: up.url }]);
  return { up, h };
}

describe('the cache leaves alone', () => {
  it('tool calls and prompt gets: each one reaches the upstream', async () => {
    const { up, h } = await docs();
    const client = await connect(cleanup, h.gateway, alice);
    for (let i = 0; i < 2; i++) {
      await expect(
        client.request({
          method: 'tools/call',
          params: { name: 'docs__tool_0', arguments: { text: 'same' } },
        }),
      ).resolves.toMatchObject({ structuredContent: { tool: 'tool_0' } });
      await expect(
        client.request({ method: 'prompts/get', params: { name: 'docs__prompt_0' } }),
      ).resolves.toMatchObject({ messages: expect.any(Array) });
    }
    expect(up.server.stats.toolCalls).toEqual({ tool_0: 2 });
    expect(up.server.stats.promptGets).toEqual({ prompt_0: 2 });
    expect(h.statuses).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('an input-required read: not stored, and not handed to the readers that joined it', async () => {
    const { up, h } = await docs();
    h.inputRequired.add(R0);
    const held = manualGate();
    cleanup.add(held.open);
    h.hold.gate = held.gate;
    const leader = handleRead(h.gateway, R0, alice);
    await eventually(() => h.hold.waiting === 1, 'the leader held after its upstream read');
    // The plugin chain runs synchronously up to the cache's wait, so the follower has joined the
    // leader's read in flight by the time handleRead returns.
    const follower = handleRead(h.gateway, R0, alice);
    h.hold.gate = undefined;
    held.open();
    const [first, second] = await Promise.all([leader, follower]);
    expect(first).toMatchObject({
      ok: true,
      result: { resultType: 'input_required', requestState: 'state-1' },
    });
    expect(second).toMatchObject({
      ok: true,
      result: { resultType: 'input_required', requestState: 'state-2' },
    });
    expect(up.reads()).toBe(2);
    expect(h.statuses).toEqual(['bypass', 'bypass']);
    // Nothing was stored: the next read goes upstream again.
    h.inputRequired.clear();
    expect(await readText(await connect(cleanup, h.gateway, bob), R0)).toBe('resource 0');
    expect(up.reads()).toBe(3);
  });

  it('the retry of a multi round-trip read: read upstream for that request alone', async () => {
    const { h } = await docs();
    const client = await connect(cleanup, h.gateway, alice);
    expect(await readText(client, R0)).toBe('resource 0');
    expect(await readText(client, R0)).toBe('resource 0');
    expect(h.statuses).toEqual(['miss', 'hit']);
    const passedBefore = h.passed.length;
    await handleRead(h.gateway, R0, alice, undefined, {
      era: 'modern',
      capabilities: {},
      inputResponses: { answer: { action: 'accept' } },
      requestState: 'state-from-an-earlier-round',
    });
    expect(h.statuses.at(-1)).toBe('bypass');
    expect(h.passed.length).toBe(passedBefore + 1);
    // The cached entry is still there for ordinary reads.
    expect(await readText(client, R0)).toBe('resource 0');
    expect(h.statuses.at(-1)).toBe('hit');
  });
});
