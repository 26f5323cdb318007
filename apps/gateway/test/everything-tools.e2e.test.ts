import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, EVERYTHING_CLI, startGateway } from './support/harness.js';
import { type ClientEra, connectOverHttp, firstText, interactiveClient } from './support/interactive.js';

// @modelcontextprotocol/server-everything's tools through the gateway (it speaks the 2025-11-25 era over
// stdio), called by official SDK clients of both eras that answer sampling, elicitation and roots
// themselves: a modern client gets the server's requests as input-required results and retries.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());

let url = '';

beforeAll(async () => {
  const gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    // A short timeout: the long-running operation outlives it, kept alive by its progress.
    mcpServers: {
      everything: { command: process.execPath, args: [EVERYTHING_CLI, 'stdio'], timeoutMs: 1500 },
    },
  });
  // The gateway listens before its upstreams are up: wait for server-everything's handshake, or the first
  // test lists no tools of it on a loaded machine.
  await gw.waitForLine(/\[switchyard:upstream:everything\] connected/, { timeoutMs: 20_000 });
  url = gw.url;
});

async function connected(era: ClientEra) {
  const { client, inputs } = interactiveClient(era);
  await connectOverHttp(cleanup, client, url);
  return { client, inputs };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name: `everything__${name}`, arguments: args }, { timeout: 20_000 });

describe.each(['legacy', 'modern'] as const)('server-everything tools for a %s client', (era) => {
  it('lists its tools namespaced, and passes results, structured content and annotations through', async () => {
    const { client } = await connected(era);
    const tools = await client.listTools(undefined, { cacheMode: 'bypass' });
    const names = tools.tools.map((t) => t.name);
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation', 'trigger-sampling-request']) {
      expect(names).toContain(`everything__${name}`);
    }
    const structured = tools.tools.find((t) => t.name === 'everything__get-structured-content');
    expect(structured?.outputSchema).toMatchObject({ type: 'object' });
    expect(firstText(await call(client, 'echo', { message: 'hi' }))).toBe('Echo: hi');
    expect(firstText(await call(client, 'get-sum', { a: 2, b: 3 }))).toMatch(/5/);
    const weather = await call(client, 'get-structured-content', { location: 'Chicago' });
    expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it('runs the long-running operation past the timeout, kept alive and reported by progress', async () => {
    const { client } = await connected(era);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 3, steps: 6 } },
      { timeout: 20_000, onprogress: (p) => progress.push(p.progress) },
    );
    expect(firstText(result)).toMatch(/Long running operation completed/);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('relays its sampling, elicitation and roots requests to the client that called, and the answers back', async () => {
    const { client, inputs } = await connected(era);
    const sampled = await call(client, 'trigger-sampling-request', { prompt: 'hello there' });
    expect(firstText(sampled)).toMatch(/"text": "sampled: [^"]*hello there/);
    expect(inputs.samplings).toHaveLength(1);
    const elicited = await call(client, 'trigger-elicitation-request');
    expect(JSON.stringify(elicited.content)).toMatch(/forty-two|accept/);
    expect(inputs.elicitations).toHaveLength(1);
    // server-everything keeps the roots it learned (per connection, and the gateway's connection is
    // shared), so whether this call asks again depends on what ran before: the answer is what counts.
    const roots = await call(client, 'get-roots-list');
    expect(firstText(roots)).toMatch(/file:\/\/\/work\/project/);
  });

  it('gives resource links back as everything+uri, readable through the gateway', async () => {
    const { client } = await connected(era);
    const linked = await call(client, 'get-resource-links', { count: 2 });
    const links = (linked.content as { type: string; uri?: string }[]).filter(
      (c) => c.type === 'resource_link',
    );
    expect(links).toHaveLength(2);
    for (const link of links) {
      expect(link.uri).toMatch(/^everything\+demo:\/\//);
      const read = await client.readResource({ uri: link.uri! }, { cacheMode: 'bypass' } as never);
      expect(read.contents[0]?.uri).toBe(link.uri);
    }
  });
});
