import { afterEach, describe, expect, it } from 'vitest';
import { EXPOSED_NAME_PATTERN } from '../src/naming/names.js';
import {
  Cleanup,
  connect,
  eventually,
  httpUpstream,
  listAll,
  names,
  startGateway,
  upstreamConfig,
} from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('tools through the gateway', () => {
  it('merges tools/list concurrently: pages = the longest upstream, names <server>__<tool>, definitions untouched', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 0, tools: 7, pageSize: 3 });
    const b = await httpUpstream(cleanup, { name: 'b', resources: 0, tools: 2, pageSize: 3 });
    const gateway = await startGateway(cleanup, [upstreamConfig('a', a.url), upstreamConfig('b', b.url)]);
    const client = await connect(cleanup, gateway);
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });

    const { items, pages } = await listAll(client, 'tools/list');
    expect(pages).toBe(3); // a: 3 + 3 + 1, b: 2 — as many round trips as the longest upstream
    expect(names(items).sort()).toEqual(
      [...Array.from({ length: 7 }, (_, i) => `a__tool_${i}`), 'b__tool_0', 'b__tool_1'].sort(),
    );
    const tool3 = items.find((t) => t.name === 'a__tool_3');
    expect(tool3).toMatchObject({
      title: 'Tool 3',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object', required: ['tool', 'arguments'] },
      annotations: { readOnlyHint: true },
      icons: [{ mimeType: 'image/png' }],
      _meta: { 'testkit/index': 3 },
    });
  });

  it('routes tools/call by exposed name; structuredContent and isError pass through; unknown names say what exists', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 1, tools: 2, behaviorTools: true });
    const gateway = await startGateway(cleanup, [upstreamConfig('a', a.url)]);
    const client = await connect(cleanup, gateway);

    const echoed = await client.callTool({ name: 'a__tool_1', arguments: { text: 'hi' } });
    expect(echoed.structuredContent).toEqual({ tool: 'tool_1', arguments: { text: 'hi' } });
    const failed = await client.callTool({ name: 'a__fail', arguments: { message: 'nope' } });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'nope' }] });
    // Invalid arguments are the upstream's to judge: its error passes through unchanged.
    await expect(client.callTool({ name: 'a__throw', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("'throw'"),
    });
    await expect(client.callTool({ name: 'a__nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool 'a__nope'.*tools\/list/),
      data: { reason: 'tool_not_found' },
    });
    await expect(client.callTool({ name: 'zz__tool_0', arguments: {} })).rejects.toMatchObject({
      data: { reason: 'tool_not_found' },
    });
    expect(a.server.stats.toolCalls).toEqual({ tool_1: 1, fail: 1, throw: 1 });
  });

  it('maps names outside ^[A-Za-z0-9_-]{1,64}$ and cuts long ones with a stable hash, and still reaches each tool', async () => {
    const odd = ['get.file/contents', 'with space', 'ünï', 'x'.repeat(80), `${'x'.repeat(80)}y`];
    const a = await httpUpstream(cleanup, { name: 'docs', resources: 0, toolNames: odd });
    const gateway = await startGateway(cleanup, [upstreamConfig('docs', a.url)]);
    const client = await connect(cleanup, gateway);
    const exposed = names((await listAll(client, 'tools/list')).items);
    expect(exposed).toHaveLength(odd.length);
    for (const name of exposed) expect(name).toMatch(EXPOSED_NAME_PATTERN);
    expect(exposed.slice(0, 3)).toEqual(['docs__get_file_contents', 'docs__with_space', 'docs___n_']);
    expect(exposed[3]).toHaveLength(64);
    expect(exposed[3]).not.toBe(exposed[4]);
    for (const [i, name] of exposed.entries()) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.structuredContent).toEqual({ tool: odd[i], arguments: {} });
    }
    // The same config gives the same names (a restarted gateway keeps them).
    const again = await startGateway(cleanup, [upstreamConfig('docs', a.url)]);
    const client2 = await connect(cleanup, again);
    expect(names((await listAll(client2, 'tools/list')).items)).toEqual(exposed);
  });

  it('reports collisions instead of merging: config order wins, and a mapped twin inside one upstream is listed once', async () => {
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (message: string, fields?: Record<string, unknown>) =>
        warnings.push(`${message} ${JSON.stringify(fields)}`),
      error() {},
      child() {
        return logger;
      },
    };
    const a = await httpUpstream(cleanup, {
      name: 'a',
      resources: 0,
      tools: 2,
      toolNames: ['dup.x', 'dup_x'],
    });
    const b = await httpUpstream(cleanup, { name: 'b', resources: 0, tools: 3 });
    const gateway = await startGateway(
      cleanup,
      [upstreamConfig('a', a.url, { prefix: false }), upstreamConfig('b', b.url, { prefix: false })],
      { logger },
    );
    const client = await connect(cleanup, gateway);
    const listed = names((await listAll(client, 'tools/list')).items);
    expect(listed).toEqual(['tool_0', 'tool_1', 'dup_x', 'tool_2']);
    await client.callTool({ name: 'tool_0', arguments: {} });
    await client.callTool({ name: 'tool_2', arguments: {} });
    await client.callTool({ name: 'dup_x', arguments: {} });
    expect(a.server.stats.toolCalls).toEqual({ tool_0: 1, 'dup.x': 1 });
    expect(b.server.stats.toolCalls).toEqual({ tool_2: 1 });
    expect(warnings.join('\n')).toMatch(
      /tool name collision.*"exposed":"tool_0".*"winner":"a:tool_0".*"hidden":"b:tool_0"/,
    );
    expect(warnings.join('\n')).toMatch(/tool name collision.*"exposed":"dup_x"/);
  });

  it('lists an upstream afresh for an unknown name, but not one whose listing never ends', async () => {
    const fresh = await httpUpstream(cleanup, { name: 'fresh', resources: 0, tools: 2 });
    const endless = await httpUpstream(cleanup, {
      name: 'endless',
      resources: 0,
      tools: 2,
      misbehave: ['endless-cursor'],
    });
    const gateway = await startGateway(
      cleanup,
      [upstreamConfig('fresh', fresh.url), upstreamConfig('endless', endless.url)],
      { limits: { maxResultBytes: 1024 * 1024, maxPagesPerList: 20 } },
    );
    const client = await connect(cleanup, gateway);
    const listed = () => [
      fresh.server.stats.requests['tools/list'],
      endless.server.stats.requests['tools/list'],
    ];
    expect(listed()).toEqual([1, 20]); // on connect: endless is cut off at maxPagesPerList
    for (const name of ['fresh__nope', 'endless__nope']) {
      await expect(client.callTool({ name, arguments: {} })).rejects.toMatchObject({
        data: { reason: 'tool_not_found' },
      });
    }
    expect(listed()).toEqual([2, 20]);
    await expect(client.callTool({ name: 'endless__tool_1', arguments: {} })).resolves.toMatchObject({
      structuredContent: { tool: 'tool_1' },
    });
  });

  it('curates with allow/deny globs over the upstream names: filtered tools are absent and refused without reaching it', async () => {
    const a = await httpUpstream(cleanup, {
      name: 'gh',
      resources: 0,
      toolNames: ['search_code', 'search_repos', 'get_file', 'repo_delete', 'search_delete'],
    });
    const gateway = await startGateway(cleanup, [
      upstreamConfig('gh', a.url, { tools: { allow: ['search_*', 'get_*'], deny: ['*_delete'] } }),
    ]);
    const client = await connect(cleanup, gateway);
    expect(names((await listAll(client, 'tools/list')).items)).toEqual([
      'gh__search_code',
      'gh__search_repos',
      'gh__get_file',
    ]);
    for (const name of ['gh__repo_delete', 'gh__search_delete']) {
      await expect(client.callTool({ name, arguments: {} })).rejects.toMatchObject({
        code: -32602,
        data: { reason: 'tool_not_found' },
      });
    }
    expect(a.server.stats.toolCalls).toEqual({});
  });

  it('exposes resource links and embedded resources as name+uri, readable through the gateway', async () => {
    const a = await httpUpstream(cleanup, { name: 'docs', resources: 2, behaviorTools: true });
    const gateway = await startGateway(cleanup, [upstreamConfig('docs', a.url)]);
    const client = await connect(cleanup, gateway);
    const linked = await client.callTool({ name: 'docs__link', arguments: {} });
    expect(linked.content).toEqual([
      { type: 'resource_link', uri: 'docs+test://docs/r/0', name: 'r0', mimeType: 'text/plain' },
      {
        type: 'resource',
        resource: { uri: 'docs+test://docs/r/0', mimeType: 'text/plain', text: 'resource 0' },
      },
    ]);
    const read = await client.readResource({ uri: 'docs+test://docs/r/0' });
    expect(read.contents[0]).toMatchObject({ uri: 'docs+test://docs/r/0', text: 'resource 0' });
  });

  it('relays progress under the caller token, and progress keeps a call alive past the timeout', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 0, behaviorTools: true });
    const gateway = await startGateway(cleanup, [upstreamConfig('a', a.url, { timeoutMs: 400 })]);
    const client = await connect(cleanup, gateway);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'a__slow', arguments: { ms: 1200, steps: 8 } },
      { onprogress: (p) => progress.push(p.progress), timeout: 10_000 },
    );
    expect(result.content).toBeDefined();
    expect(progress.length).toBeGreaterThanOrEqual(6);
    // Without a progress token from the caller the gateway still asks for progress, to stay alive.
    await expect(
      client.callTool({ name: 'a__slow', arguments: { ms: 1200, steps: 8 } }, { timeout: 10_000 }),
    ).resolves.toMatchObject({ content: expect.any(Array) });
    // Silence past the timeout is a timeout, cancelled upstream.
    await expect(
      client.callTool({ name: 'a__slow', arguments: { ms: 1200, steps: 1 } }, { timeout: 10_000 }),
    ).rejects.toMatchObject({ code: -32004, data: { reason: 'upstream_timeout' } });
    await eventually(() => a.server.stats.activeToolCalls === 0 || undefined, 'upstream call cancelled');
  });

  it('cancels the upstream call when the caller cancels', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 0, behaviorTools: true });
    const gateway = await startGateway(cleanup, [upstreamConfig('a', a.url)]);
    const client = await connect(cleanup, gateway);
    const abort = new AbortController();
    const call = client.callTool({ name: 'a__slow', arguments: { ms: 20_000 } }, { signal: abort.signal });
    await eventually(() => a.server.stats.activeToolCalls === 1 || undefined, 'call running upstream');
    abort.abort();
    await expect(call).rejects.toThrow();
    await eventually(() => a.server.stats.activeToolCalls === 0 || undefined, 'upstream call cancelled');
  });

  it("keeps an upstream log message from another caller's session: never across identities", async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 0, behaviorTools: true });
    const gateway = await startGateway(cleanup, [upstreamConfig('a', a.url)]);
    const alice = await connect(cleanup, gateway, { id: 'alice', groups: [], anonymous: false });
    const bob = await connect(cleanup, gateway, { id: 'bob', groups: [], anonymous: false });
    const heard = { alice: [] as unknown[], bob: [] as unknown[] };
    alice.setNotificationHandler('notifications/message', (n) => void heard.alice.push(n.params.data));
    bob.setNotificationHandler('notifications/message', (n) => void heard.bob.push(n.params.data));
    const log = (data: string) => alice.callTool({ name: 'a__log', arguments: { message: data } });

    await log('alone');
    await eventually(() => heard.alice.length === 1 || undefined, "alice's log message");
    // Bob's call is in flight on the same upstream: nothing tells whose request alice's message is about.
    const abort = new AbortController();
    const slow = bob.callTool({ name: 'a__slow', arguments: { ms: 20_000 } }, { signal: abort.signal });
    await eventually(() => a.server.stats.activeToolCalls === 1 || undefined, "bob's call running upstream");
    await log('a+file:///alice/private.txt opened');
    await bob.ping(); // anything relayed to bob before alice's answer arrives before this answer
    abort.abort();
    await expect(slow).rejects.toThrow();
    expect(heard).toEqual({ alice: ['alone'], bob: [] });
  });

  it('says when the upstream of a tool is down', async () => {
    const gateway = await startGateway(cleanup, [upstreamConfig('a', 'http://127.0.0.1:9/mcp')]);
    const client = await connect(cleanup, gateway);
    await expect(client.callTool({ name: 'a__tool_0', arguments: {} })).rejects.toMatchObject({
      code: -32003,
      data: { reason: 'upstream_unavailable', upstream: 'a' },
    });
  });

  it('re-emits tools/list_changed (coalesced) and refreshes its index from it', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 0, tools: 1 });
    const b = await httpUpstream(cleanup, { name: 'b', resources: 0, tools: 1 });
    const gateway = await startGateway(cleanup, [
      upstreamConfig('a', a.url, { prefix: false }),
      upstreamConfig('b', b.url),
    ]);
    const client = await connect(cleanup, gateway);
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes += 1;
    });
    await Promise.all([a.server.setToolCount(3), b.server.setToolCount(2)]);
    await eventually(() => changes > 0 || undefined, 'tools/list_changed');
    // Unprefixed names need the index: the refreshed one routes the new tool at once.
    const result = await client.callTool({ name: 'tool_2', arguments: {} });
    expect(result.structuredContent).toEqual({ tool: 'tool_2', arguments: {} });
    expect(changes).toBeLessThanOrEqual(2);
  });

  it('advertises tools only when some upstream has them', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 1 });
    const gateway = await startGateway(cleanup, [upstreamConfig('a', a.url)]);
    const client = await connect(cleanup, gateway);
    expect(client.getServerCapabilities()?.tools).toBeUndefined();
    expect(client.getServerCapabilities()?.prompts).toBeUndefined();
  });
});
