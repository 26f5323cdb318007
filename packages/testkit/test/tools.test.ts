import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { controlClient, TestServer, type TestServerOptions } from '../src/index.js';
import {
  CLIENT_ROOTS,
  Cleanup,
  connectHttp,
  deferred,
  httpClient,
  interactiveClient,
  until,
  within,
} from './helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const ERAS = ['legacy', 'modern'] as const;
type Era = (typeof ERAS)[number];

async function start(options: TestServerOptions = {}) {
  const server = new TestServer({ modern: true, ...options });
  cleanup.add(() => server.close());
  const http = await server.listenHttp();
  return { server, http };
}

/** A started server plus a connected client of `era` that answers elicitation, sampling and roots. */
async function connected(era: Era, options: TestServerOptions = {}) {
  const { server, http } = await start(options);
  const { client, inputs } = interactiveClient(era);
  await connectHttp(client, http.url, cleanup);
  expect(client.getProtocolEra()).toBe(era);
  return { server, http, client, inputs };
}

/** Walks every tools/list page with explicit cursors. */
async function toolPages(client: Client) {
  const names: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await client.request({
      method: 'tools/list',
      params: cursor === undefined ? {} : { cursor },
    });
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { names, pages };
}

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as Array<{ type: string; text?: string }>;
  if (first?.type !== 'text' || first.text === undefined)
    throw new Error(`not a text result: ${JSON.stringify(result)}`);
  return first.text;
}

const BEHAVIOR_NAMES = ['echo', 'slow', 'fail', 'throw', 'link', 'elicit', 'sample', 'roots', 'log'];

describe.each(ERAS)('tools, %s era over HTTP', (era) => {
  it('lists generated, named and behaviour tools in pages', async () => {
    const toolNames = ['dotted.name', 'a/b', 'with space', 'ünïcödé', 'x'.repeat(80)];
    const { client } = await connected(era, { tools: 7, toolNames, behaviorTools: true, pageSize: 5 });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const all = await toolPages(client);
    const expected = [...Array.from({ length: 7 }, (_, i) => `tool_${i}`), ...toolNames, ...BEHAVIOR_NAMES];
    expect(all).toEqual({ names: expected, pages: 5 });
    const walked = await client.listTools(undefined, { cacheMode: 'bypass' });
    expect(walked.tools.map((t) => t.name)).toEqual(expected);
    expect(walked.tools[3]).toEqual({
      name: 'tool_3',
      title: 'Tool 3',
      description: expect.any(String),
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', description: expect.any(String) } },
        additionalProperties: true,
      },
      outputSchema: {
        type: 'object',
        properties: { tool: { type: 'string' }, arguments: { type: 'object' } },
        required: ['tool', 'arguments'],
      },
      annotations: { readOnlyHint: true },
      icons: [
        { src: expect.stringMatching(/^data:image\/png;base64,/), mimeType: 'image/png', sizes: ['1x1'] },
      ],
      _meta: { 'testkit/index': 3 },
    });
  });

  it('echoes calls of generated and named tools; unknown tools answer -32602', async () => {
    const long = 'ü'.repeat(70);
    const { server, client } = await connected(era, { tools: 3, toolNames: ['a.b/c d', long] });
    await client.listTools(undefined, { cacheMode: 'bypass' });
    const result = await client.callTool({ name: 'tool_2', arguments: { text: 'hi', n: 1 } });
    const echoed = { tool: 'tool_2', arguments: { text: 'hi', n: 1 } };
    expect(result).toMatchObject({
      content: [{ type: 'text', text: JSON.stringify(echoed) }],
      structuredContent: echoed,
    });
    for (const name of ['a.b/c d', long]) {
      const named = await client.callTool({ name, arguments: {} });
      expect(named.structuredContent).toEqual({ tool: name, arguments: {} });
    }
    await expect(client.callTool({ name: 'tool_3', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: tool_3'),
    });
    expect(server.stats.toolCalls).toEqual({ tool_2: 1, 'a.b/c d': 1, [long]: 1, tool_3: 1 });
  });

  it('behaviour tools: echo, fail, throw, link, log', async () => {
    const { client } = await connected(era, { name: 'beh', resources: 2, behaviorTools: true });
    await client.listTools(undefined, { cacheMode: 'bypass' });
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(echo.structuredContent).toEqual({ tool: 'echo', arguments: { text: 'x' } });

    const failed = await client.callTool({ name: 'fail', arguments: { message: 'nope' } });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'nope' }] });

    await expect(client.callTool({ name: 'throw', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("'throw'"),
    });

    const linked = await client.callTool({ name: 'link', arguments: {} });
    expect(linked.content).toEqual([
      { type: 'resource_link', uri: 'test://beh/r/0', name: 'r0', mimeType: 'text/plain' },
      { type: 'resource', resource: { uri: 'test://beh/r/0', mimeType: 'text/plain', text: 'resource 0' } },
    ]);

    const logged = deferred<unknown>();
    client.setNotificationHandler('notifications/message', (n) => logged.resolve(n.params));
    const log = await client.callTool({ name: 'log', arguments: { message: 'hello' } });
    expect(text(log)).toBe('logged');
    expect(await within(logged.promise, 3000, 'log message')).toEqual({
      level: 'info',
      logger: 'beh',
      data: 'hello',
    });
  });

  it('behaviour tools: elicit, sample and roots reach the client', async () => {
    const { server, client, inputs } = await connected(era, { behaviorTools: true });
    const elicited = await client.callTool({ name: 'elicit', arguments: { message: 'Your answer?' } });
    expect(JSON.parse(text(elicited))).toEqual({ action: 'accept', content: { answer: 'forty-two' } });
    expect(inputs.elicitations).toEqual([
      expect.objectContaining({
        message: 'Your answer?',
        requestedSchema: expect.objectContaining({
          properties: { answer: expect.objectContaining({ type: 'string' }) },
        }),
      }),
    ]);

    const sampled = await client.callTool({ name: 'sample', arguments: { prompt: 'Say hi' } });
    expect(text(sampled)).toBe('sampled: Say hi');
    expect(inputs.samplings).toEqual([
      expect.objectContaining({
        maxTokens: 50,
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
      }),
    ]);

    const roots = await client.callTool({ name: 'roots', arguments: {} });
    expect(JSON.parse(text(roots))).toEqual(CLIENT_ROOTS);
    expect(inputs.rootsRequests).toBe(1);

    // Legacy: one tools/call each, the SDK shim asked the client and re-entered the handler. Modern: the
    // client retried each call once with the input responses.
    const perTool = era === 'legacy' ? 1 : 2;
    expect(server.stats.toolCalls).toEqual({ elicit: perTool, sample: perTool, roots: perTool });
  });

  it('slow: progress spread over ms, then the result', async () => {
    const { client } = await connected(era, { behaviorTools: true });
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await client.callTool(
      { name: 'slow', arguments: { ms: 40, steps: 4 } },
      { onprogress: (p) => progress.push({ progress: p.progress, total: p.total }) },
    );
    expect(text(result)).toBe('slept 40 ms');
    expect(progress).toEqual([1, 2, 3, 4].map((n) => ({ progress: n, total: 4 })));
  });

  it('slow: a cancelled call stops on the server', async () => {
    const { server, client } = await connected(era, { behaviorTools: true });
    const abort = new AbortController();
    const firstProgress = deferred<void>();
    const pending = client.callTool(
      { name: 'slow', arguments: { ms: 60_000, steps: 6000 } },
      { signal: abort.signal, onprogress: () => firstProgress.resolve() },
    );
    await within(firstProgress.promise, 5000, 'first progress');
    expect(server.stats.activeToolCalls).toBe(1);
    abort.abort(new Error('test cancels'));
    await expect(pending).rejects.toThrow();
    await until(() => server.stats.activeToolCalls === 0, 5000, 'slow handler stopped');
  });
});

describe.each(ERAS)('tools and prompts list_changed, %s era over HTTP', (era) => {
  /** Resolves on the next `notifications/<list>/list_changed` the client receives. */
  function nextListChanged(client: Client, list: 'tools' | 'prompts') {
    const got = deferred<void>();
    if (list === 'tools')
      client.setNotificationHandler('notifications/tools/list_changed', () => got.resolve());
    else client.setNotificationHandler('notifications/prompts/list_changed', () => got.resolve());
    return got.promise;
  }

  it('setToolCount / setPromptCount change the lists and notify', async () => {
    const { server, http, client } = await connected(era, { tools: 2, prompts: 1 });
    if (era === 'modern') {
      const subscription = await within(
        client.listen({ toolsListChanged: true, promptsListChanged: true }),
        5000,
        'listen ack',
      );
      cleanup.add(() => subscription.close());
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
    }
    const tools = nextListChanged(client, 'tools');
    await server.setToolCount(4);
    await within(tools, 3000, 'tools/list_changed');
    expect((await client.listTools(undefined, { cacheMode: 'bypass' })).tools.map((t) => t.name)).toEqual([
      'tool_0',
      'tool_1',
      'tool_2',
      'tool_3',
    ]);
    const prompts = nextListChanged(client, 'prompts');
    await server.setPromptCount(3);
    await within(prompts, 3000, 'prompts/list_changed');
    expect((await client.listPrompts(undefined, { cacheMode: 'bypass' })).prompts).toHaveLength(3);

    // The same through the control API, and the bare triggers.
    const control = controlClient(http.controlUrl);
    const viaControl = nextListChanged(client, 'tools');
    await control.tools(1);
    await within(viaControl, 3000, 'tools/list_changed via control');
    expect(server.options.tools).toBe(1);
    const triggered = nextListChanged(client, 'prompts');
    await control.promptsListChanged();
    await within(triggered, 3000, 'prompts/list_changed via control trigger');
    const again = nextListChanged(client, 'tools');
    await server.triggerToolsListChanged();
    await within(again, 3000, 'tools/list_changed trigger');
  });
});

describe('capabilities', () => {
  it('a resource-only server advertises neither tools nor prompts, and count changes notify nobody', async () => {
    const { server, http } = await start({ modern: false });
    const client = await httpClient(http.url, cleanup);
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toBeUndefined();
    expect(caps?.prompts).toBeUndefined();
    await expect(client.request({ method: 'tools/list', params: {} })).rejects.toMatchObject({
      code: -32601,
    });
    await server.setToolCount(2);
    await server.setPromptCount(2);
    // Capabilities hold for a session's life; a new session sees the tools and prompts.
    const later = await httpClient(http.url, cleanup);
    expect(later.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
    });
    expect((await later.listTools(undefined, { cacheMode: 'bypass' })).tools).toHaveLength(2);
  });

  it.each(ERAS)('%s: elicit without the client capability fails the call', async (era) => {
    const { server, http } = await start({ behaviorTools: true });
    const client = new Client(
      { name: 'plain', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
    );
    await connectHttp(client, http.url, cleanup);
    if (era === 'legacy') {
      // The SDK's legacy shim reports it the 2025 way: a tool error.
      const result = await client.callTool({ name: 'elicit', arguments: {} });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/capability/);
    } else {
      // The modern seam refuses the input request the client could not fulfil: -32021.
      await expect(client.callTool({ name: 'elicit', arguments: {} })).rejects.toMatchObject({
        code: -32021,
      });
    }
    expect(server.stats.toolCalls.elicit).toBe(1);
  });
});
