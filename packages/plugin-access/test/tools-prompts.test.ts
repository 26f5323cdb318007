import type { Client } from '@modelcontextprotocol/client';
import type { Identity } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessOptions } from '../src/index.js';
import {
  alice,
  bob,
  Cleanup,
  carol,
  connect as connectAs,
  FORBIDDEN,
  range,
  gatewayWith as startGateway,
  type UpstreamSpec,
  walk,
} from './support.js';

// Tools and prompts under access rules, through a real gateway, testkit upstreams over HTTP and
// official SDK clients: lists, calls, gets and prompt completions.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const DOCS: UpstreamSpec = {
  name: 'docs',
  options: { name: 'docs', resources: 2, tools: 30, pageSize: 5, prompts: 4 },
};
const WIKI: UpstreamSpec = { name: 'wiki', options: { name: 'wiki', resources: 2, tools: 3, prompts: 2 } };

const gatewayWith = (options: AccessOptions, specs: UpstreamSpec[] = [DOCS, WIKI]) =>
  startGateway(cleanup, options, specs);
const connect = (gateway: Parameters<typeof connectAs>[1], identity: Identity) =>
  connectAs(cleanup, gateway, identity);

const call = (client: Client, name: string) =>
  client.request({ method: 'tools/call', params: { name, arguments: { text: 'hi' } } });
const get = (client: Client, name: string) => client.request({ method: 'prompts/get', params: { name } });
const completePrompt = (client: Client, name: string) =>
  client.request({
    method: 'completion/complete',
    params: { ref: { type: 'ref/prompt', name }, argument: { name: 'topic', value: '' } },
  });
const read = (client: Client, uri: string) => client.request({ method: 'resources/read', params: { uri } });
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code: number; message: string; data?: Record<string, unknown> },
  );

const docsTools = range(0, 30).map((i) => `docs__tool_${i}`);
const wikiTools = range(0, 3).map((i) => `wiki__tool_${i}`);

describe('tools', () => {
  const policy: AccessOptions = {
    default: 'allow',
    rules: [{ effect: 'deny', groups: ['contractors'], tools: ['docs__tool_1*', 'wiki__*'] }],
  };

  it('vanish from tools/list for the denied caller only, and every listed tool can be called', async () => {
    const { gateway } = await gatewayWith(policy);
    const bobList = await walk(await connect(gateway, bob), 'tools/list');
    const hidden = new Set(['docs__tool_1', ...range(10, 20).map((i) => `docs__tool_${i}`), ...wikiTools]);
    expect(bobList.items.sort()).toEqual(docsTools.filter((t) => !hidden.has(t)).sort());
    for (const page of bobList.pages) if (page.nextCursor) expect(page.items.length).toBeGreaterThan(0);
    const aliceList = await walk(await connect(gateway, alice), 'tools/list');
    expect(aliceList.items.sort()).toEqual([...docsTools, ...wikiTools].sort());
  });

  it('refuses a denied call with forbidden without reaching the upstream', async () => {
    const { gateway, server } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    await expect(call(bobClient, 'docs__tool_1')).rejects.toMatchObject(FORBIDDEN);
    await expect(call(bobClient, 'wiki__tool_0')).rejects.toMatchObject(FORBIDDEN);
    expect(server('docs').stats.toolCalls).toEqual({});
    expect(server('wiki').stats.toolCalls).toEqual({});
    await expect(call(bobClient, 'docs__tool_2')).resolves.toMatchObject({
      structuredContent: { tool: 'tool_2', arguments: { text: 'hi' } },
    });
    await expect(call(await connect(gateway, alice), 'docs__tool_1')).resolves.toBeDefined();
    expect(server('docs').stats.toolCalls).toEqual({ tool_2: 1, tool_1: 1 });
  });

  it('answers a denied name the same whether or not it exists, and an unknown name without naming others', async () => {
    const { gateway } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    const existing = await errorOf(call(bobClient, 'docs__tool_12'));
    const missing = await errorOf(call(bobClient, 'docs__tool_1999'));
    expect(existing).toMatchObject(FORBIDDEN);
    expect(missing).toMatchObject(FORBIDDEN);
    expect(missing?.message.replace('docs__tool_1999', '<name>')).toBe(
      existing?.message.replace('docs__tool_12', '<name>'),
    );
    // Not denied, not there: the gateway's not-found, without its sample of names bob may not call.
    const unknown = await errorOf(call(bobClient, 'docs__nothing'));
    expect(unknown).toMatchObject({
      code: -32602,
      data: { reason: 'tool_not_found', name: 'docs__nothing' },
    });
    expect(unknown?.message).not.toMatch(/wiki__|tool_1/);
  });

  it('never let a tools rule decide a resource read, nor a uris rule a tool call', async () => {
    const { gateway } = await gatewayWith({
      default: 'allow',
      rules: [
        { effect: 'deny', tools: ['*'] },
        { effect: 'deny', uris: ['**'], prompts: ['docs__prompt_0'] },
      ],
    });
    const client = await connect(gateway, carol);
    await expect(read(client, 'wiki+test://wiki/r/0')).rejects.toMatchObject(FORBIDDEN);
    await expect(call(client, 'docs__tool_0')).rejects.toMatchObject(FORBIDDEN);
    await expect(get(client, 'docs__prompt_1')).resolves.toMatchObject({ messages: expect.any(Array) });
    await expect(get(client, 'docs__prompt_0')).rejects.toMatchObject(FORBIDDEN);
    expect((await walk(client, 'tools/list')).items).toEqual([]);
  });

  it('stay correctly paged when the rules hide whole upstream pages', async () => {
    const { gateway, server } = await gatewayWith({
      default: 'allow',
      rules: [{ effect: 'deny', clients: ['bob'], tools: range(0, 23).map((i) => `docs__tool_${i}`) }],
    });
    const listsBefore = server('docs').stats.requests['tools/list'] ?? 0;
    const { pages, items } = await walk(await connect(gateway, bob), 'tools/list');
    expect(items.sort()).toEqual([...range(23, 30).map((i) => `docs__tool_${i}`), ...wikiTools].sort());
    expect(new Set(items).size).toBe(items.length);
    for (const page of pages) if (page.nextCursor) expect(page.items.length).toBeGreaterThan(0);
    // docs' six pages are each fetched once: four skipped inside the first downstream page, which ends
    // with the fifth (tool_23, tool_24), then the sixth.
    expect(pages).toHaveLength(2);
    expect((server('docs').stats.requests['tools/list'] ?? 0) - listsBefore).toBe(6);
  });

  it('apply servers rules to tools, and to names of unprefixed servers whether or not they exist', async () => {
    const flat: UpstreamSpec = {
      name: 'flat',
      prefix: false,
      options: { name: 'flat', resources: 1, tools: 2 },
    };
    const { gateway, server } = await gatewayWith(
      { default: 'allow', rules: [{ effect: 'deny', clients: ['carol'], servers: ['flat'] }] },
      [flat, WIKI],
    );
    const carolClient = await connect(gateway, carol);
    expect((await walk(carolClient, 'tools/list')).items.sort()).toEqual(wikiTools);
    const existing = await errorOf(call(carolClient, 'tool_0'));
    const missing = await errorOf(call(carolClient, 'no_such_tool'));
    expect(existing).toMatchObject(FORBIDDEN);
    expect(missing).toMatchObject(FORBIDDEN);
    await expect(call(carolClient, 'wiki__tool_0')).resolves.toBeDefined();
    await expect(call(await connect(gateway, alice), 'tool_0')).resolves.toBeDefined();
    expect(server('flat').stats.toolCalls).toEqual({ tool_0: 1 });
  });
});

describe('prompts', () => {
  const policy: AccessOptions = {
    default: 'deny',
    rules: [
      { effect: 'allow', groups: ['platform'] },
      { effect: 'deny', prompts: ['docs__prompt_0'] },
      {
        effect: 'allow',
        clients: ['bob'],
        prompts: ['docs__*'],
        methods: ['prompts/get', 'completion/complete'],
      },
    ],
  };

  it('vanish from prompts/list, and get and completion on them are forbidden without reaching the upstream', async () => {
    const { gateway, server } = await gatewayWith(policy);
    const bobClient = await connect(gateway, bob);
    const names = range(1, 4).map((i) => `docs__prompt_${i}`);
    expect((await walk(bobClient, 'prompts/list')).items.sort()).toEqual(names);
    await expect(get(bobClient, 'docs__prompt_0')).rejects.toMatchObject(FORBIDDEN);
    await expect(completePrompt(bobClient, 'docs__prompt_0')).rejects.toMatchObject(FORBIDDEN);
    await expect(get(bobClient, 'wiki__prompt_0')).rejects.toMatchObject(FORBIDDEN);
    expect(server('docs').stats.promptGets).toEqual({});
    expect(server('wiki').stats.promptGets).toEqual({});
    await expect(get(bobClient, 'docs__prompt_1')).resolves.toMatchObject({ messages: expect.any(Array) });
    await expect(completePrompt(bobClient, 'docs__prompt_1')).resolves.toMatchObject({
      completion: expect.any(Object),
    });
    expect(server('docs').stats.promptGets).toEqual({ prompt_1: 1 });
    // Tools are not prompts: no rule allows bob a tool.
    await expect(call(bobClient, 'docs__tool_0')).rejects.toMatchObject(FORBIDDEN);
  });
});

describe('resources inside results', () => {
  it('remove the links and redact the embedded resources a tool or prompt returns that the caller may not read', async () => {
    const docs: UpstreamSpec = {
      name: 'docs',
      options: { name: 'docs', resources: 2, behaviorTools: true, prompts: 1 },
    };
    const { gateway } = await gatewayWith(
      { default: 'allow', rules: [{ effect: 'deny', clients: ['bob'], uris: ['docs+test://docs/r/0'] }] },
      [docs],
    );
    type Content = { type: string; uri?: string; resource?: { uri: string } }[];
    const link = async (client: Client) =>
      ((await call(client, 'docs__link')) as { content: Content }).content;
    const aliceClient = await connect(gateway, alice);
    const bobClient = await connect(gateway, bob);
    expect(await link(aliceClient)).toEqual([
      expect.objectContaining({ type: 'resource_link', uri: 'docs+test://docs/r/0' }),
      expect.objectContaining({
        type: 'resource',
        resource: expect.objectContaining({ uri: 'docs+test://docs/r/0' }),
      }),
    ]);
    // The link is removed, the embedded copy redacted: neither its URI nor its content reaches bob.
    const withheld = { type: 'text', text: expect.stringMatching(/withheld/) };
    expect(await link(bobClient)).toEqual([withheld]);
    expect(JSON.stringify(await get(bobClient, 'docs__prompt_0'))).not.toContain('docs+test://docs/r/0');
    expect(JSON.stringify(await get(aliceClient, 'docs__prompt_0'))).toContain('docs+test://docs/r/0');
  });
});
