import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, type TestServerOptions } from '../src/index.js';
import { Cleanup, connectHttp, interactiveClient, until } from './helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function connected(era: 'legacy' | 'modern', options: TestServerOptions) {
  const server = new TestServer({ modern: true, ...options });
  cleanup.add(() => server.close());
  const http = await server.listenHttp();
  const { client } = interactiveClient(era);
  await connectHttp(client, http.url, cleanup);
  return { server, client };
}

describe.each(['legacy', 'modern'] as const)('failures and latency on tools and prompts, %s era', (era) => {
  it('failNext applies to tools/call and prompts/get, optionally by name', async () => {
    const { server, client } = await connected(era, { tools: 2, prompts: 2 });
    server.failNext({ method: 'tools/call', name: 'tool_1', mode: 'error', code: -32050, message: 'down' });
    const ok = await client.callTool({ name: 'tool_0', arguments: {} });
    expect(ok.isError).toBeUndefined();
    await expect(client.callTool({ name: 'tool_1', arguments: {} })).rejects.toMatchObject({ code: -32050 });
    await expect(client.callTool({ name: 'tool_1', arguments: {} })).resolves.toMatchObject({
      structuredContent: { tool: 'tool_1', arguments: {} },
    });

    server.failNext({ method: 'prompts/get', mode: 'error' });
    await expect(client.getPrompt({ name: 'prompt_0' })).rejects.toMatchObject({ code: -32603 });
    await expect(client.getPrompt({ name: 'prompt_0' })).resolves.toMatchObject({
      messages: expect.any(Array),
    });

    server.failNext({ method: 'tools/call', mode: 'hang' });
    const abort = new AbortController();
    const hung = client.callTool({ name: 'tool_0', arguments: {} }, { signal: abort.signal });
    await until(() => server.stats.toolCalls.tool_0 === 2, 5000, 'hung call received');
    abort.abort(new Error('test cancels'));
    await expect(hung).rejects.toThrow();
    // Injected failures count like any request received.
    expect(server.stats.toolCalls).toEqual({ tool_0: 2, tool_1: 2 });
    expect(server.stats.promptGets).toEqual({ prompt_0: 2 });
  });

  it('latencyMs delays tools/list, echo calls, prompts/list and prompts/get', async () => {
    const { server, client } = await connected(era, { tools: 1, prompts: 1 });
    server.setLatency(100);
    const timed = async (what: () => Promise<unknown>): Promise<number> => {
      const t0 = performance.now();
      await what();
      return performance.now() - t0;
    };
    expect(await timed(() => client.request({ method: 'tools/list', params: {} }))).toBeGreaterThanOrEqual(
      90,
    );
    expect(await timed(() => client.callTool({ name: 'tool_0', arguments: {} }))).toBeGreaterThanOrEqual(90);
    expect(await timed(() => client.request({ method: 'prompts/list', params: {} }))).toBeGreaterThanOrEqual(
      90,
    );
    expect(await timed(() => client.getPrompt({ name: 'prompt_0' }))).toBeGreaterThanOrEqual(90);

    // Cancellable: a call held by a long latency stops when the client gives up.
    server.setLatency(60_000);
    const abort = new AbortController();
    const pending = client.callTool({ name: 'tool_0', arguments: {} }, { signal: abort.signal });
    await until(() => server.stats.activeToolCalls === 1, 5000, 'call in flight');
    abort.abort(new Error('test cancels'));
    await expect(pending).rejects.toThrow();
    await until(() => server.stats.activeToolCalls === 0, 5000, 'delayed call stopped');
  });
});
