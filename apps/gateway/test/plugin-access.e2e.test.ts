import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  GATEWAY_CLI,
  httpUpstream,
  listAll,
  spawnGateway,
  startGateway,
  writeConfig,
} from './support/harness.js';

// @switchyard/plugin-access loaded by package name through the real CLI, over Streamable HTTP, with
// clients told apart by their bearer tokens (and a tokenless anonymous identity).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const ALICE = 'alice-token-5b2e91c4';
const BOB = 'bob-token-c03f7a18';
const FORBIDDEN = { code: -32007, data: { reason: 'forbidden' } };

const accessOptions = {
  default: 'deny',
  rules: [
    { effect: 'allow', groups: ['platform'], description: 'platform sees everything' },
    { effect: 'deny', uris: ['docs+test://docs/r/1*', 'docs+test://docs/t1/**'] },
    { effect: 'allow', groups: ['contractors'], servers: ['docs'] },
    { effect: 'allow', clients: ['guest'], uris: ['wiki+**'] },
  ],
};

async function gatewayWithAccess() {
  const docs = await httpUpstream(cleanup, { name: 'docs', resources: 12, pageSize: 5, templates: 2 });
  const wiki = await httpUpstream(cleanup, { name: 'wiki', resources: 3, templates: 1 });
  const gw = await startGateway(
    cleanup,
    {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url: docs.url }, wiki: { url: wiki.url } },
      clients: {
        alice: { token: '${ALICE_TOKEN}', groups: ['platform'] },
        bob: { token: '${BOB_TOKEN}', groups: ['contractors'] },
      },
      anonymous: 'guest',
      plugins: [['@switchyard/plugin-access', accessOptions]],
    },
    { env: { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB } },
  );
  return { gw, docs: docs.server };
}

const uris = async (client: Client, method?: 'resources/list' | 'resources/templates/list') => {
  const key = method === 'resources/templates/list' ? 'uriTemplate' : 'uri';
  const { items } = await listAll(client, method);
  return items.map((item) => String(item[key])).sort();
};
const read = (client: Client, uri: string) => client.request({ method: 'resources/read', params: { uri } });
const range = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i));

/** Walks tools/list or prompts/list with explicit cursors: the names of every page. */
async function namePages(client: Client, method: 'tools/list' | 'prompts/list') {
  const field = method === 'tools/list' ? 'tools' : 'prompts';
  const pages: { names: string[]; more: boolean }[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request({ method, params: cursor ? { cursor } : {} })) as Record<
      string,
      unknown
    >;
    cursor = page.nextCursor as string | undefined;
    pages.push({
      names: (page[field] as { name: string }[]).map((item) => item.name),
      more: Boolean(cursor),
    });
  } while (cursor && pages.length < 100);
  return { pages, names: pages.flatMap((p) => p.names).sort() };
}

describe('@switchyard/plugin-access through the CLI', () => {
  it('shows each client its own list and refuses what it may not read', async () => {
    const { gw, docs } = await gatewayWithAccess();
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: ALICE });
    const bob = await connectHttp(cleanup, gw.url, 'bob', { token: BOB });
    const guest = await connectHttp(cleanup, gw.url, 'guest');

    const allDocs = range(12, (i) => `docs+test://docs/r/${i}`);
    const allWiki = range(3, (i) => `wiki+test://wiki/r/${i}`);
    expect(await uris(alice)).toEqual([...allDocs, ...allWiki].sort());
    const bobDocs = allDocs.filter((u) => !/\/r\/1\d?$/.test(u));
    expect(bobDocs).toHaveLength(9);
    expect(await uris(bob)).toEqual(bobDocs.sort());
    expect(await uris(guest)).toEqual(allWiki.sort());
    expect(await uris(bob, 'resources/templates/list')).toEqual(['docs+test://docs/items/{id}']);
    expect(await uris(guest, 'resources/templates/list')).toEqual(['wiki+test://wiki/items/{id}']);

    const readsBefore = docs.stats.requests['resources/read'] ?? 0;
    for (const uri of ['docs+test://docs/r/1', 'docs+test://docs/r/%31', 'DOCS+test://docs/r/x/../10']) {
      await expect(read(bob, uri), uri).rejects.toMatchObject(FORBIDDEN);
    }
    await expect(read(bob, 'wiki+test://wiki/r/0')).rejects.toMatchObject(FORBIDDEN);
    await expect(read(guest, 'docs+test://docs/r/0')).rejects.toMatchObject(FORBIDDEN);
    await expect(
      bob.request({ method: 'resources/subscribe', params: { uri: 'docs+test://docs/r/11' } }),
    ).rejects.toMatchObject(FORBIDDEN);
    await expect(
      bob.request({
        method: 'completion/complete',
        params: {
          ref: { type: 'ref/resource', uri: 'docs+test://docs/t1/{id}' },
          argument: { name: 'id', value: '' },
        },
      }),
    ).rejects.toMatchObject(FORBIDDEN);
    expect(docs.stats.requests['resources/read'] ?? 0).toBe(readsBefore);

    await expect(read(bob, 'docs+test://docs/r/2')).resolves.toMatchObject({
      contents: [{ uri: 'docs+test://docs/r/2', text: 'resource 2' }],
    });
    await expect(read(alice, 'docs+test://docs/r/1')).resolves.toMatchObject({
      contents: [{ uri: 'docs+test://docs/r/1' }],
    });
    await expect(read(guest, 'wiki+test://wiki/r/2')).resolves.toMatchObject({
      contents: [{ uri: 'wiki+test://wiki/r/2' }],
    });
  });

  it('refuses a modern listen stream on a denied URI, and serves an allowed one', async () => {
    const { gw, docs } = await gatewayWithAccess();
    const bob = new Client({ name: 'bob-modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await bob.connect(
      new StreamableHTTPClientTransport(new URL(gw.url), {
        requestInit: { headers: { authorization: `Bearer ${BOB}` } },
      }),
    );
    cleanup.add(() => bob.close());
    expect(bob.getProtocolEra()).toBe('modern');
    const subscribesBefore = docs.stats.requests['resources/subscribe'] ?? 0;
    await expect(bob.listen({ resourceSubscriptions: ['docs+test://docs/r/1'] })).rejects.toMatchObject({
      code: -32007,
    });
    expect(docs.stats.requests['resources/subscribe'] ?? 0).toBe(subscribesBefore);
    const allowed = await bob.listen({ resourceSubscriptions: ['docs+test://docs/r/2'] });
    cleanup.add(() => allowed.close());
    await expect
      .poll(() => docs.stats.requests['resources/subscribe'] ?? 0, { timeout: 5_000 })
      .toBe(subscribesBefore + 1);
  });

  it('refuses a modern listen on a denied URI over stdio too (the stdio session is the anonymous identity)', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 3 });
    const config = await writeConfig(cleanup, {
      mcpServers: { docs: { url: docs.url } },
      anonymous: 'local',
      plugins: [
        [
          '@switchyard/plugin-access',
          {
            default: 'allow',
            rules: [{ effect: 'deny', clients: ['local'], uris: ['docs+test://docs/r/1'] }],
          },
        ],
      ],
    });
    const client = new Client(
      { name: 'modern-stdio', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [GATEWAY_CLI, '--config', config],
        stderr: 'ignore',
      }),
    );
    cleanup.add(() => client.close());
    await expect(client.listen({ resourceSubscriptions: ['docs+test://docs/r/1'] })).rejects.toMatchObject({
      code: -32007,
    });
    expect(docs.server.stats.subscribeCalls).toBe(0);
    const allowed = await client.listen({ resourceSubscriptions: ['docs+test://docs/r/2'] });
    cleanup.add(() => allowed.close());
    expect(docs.server.stats.subscribeCalls).toBe(1);
    // The session keeps serving after a refused listen.
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'docs+test://docs/r/0' } }),
    ).resolves.toMatchObject({ contents: [expect.objectContaining({ uri: 'docs+test://docs/r/0' })] });
  });

  it('hides denied tools and prompts from each client and refuses their calls before the upstream', async () => {
    const docs = await httpUpstream(cleanup, {
      name: 'docs',
      resources: 1,
      tools: 24,
      pageSize: 4,
      prompts: 2,
    });
    const wiki = await httpUpstream(cleanup, { name: 'wiki', resources: 1, tools: 2, prompts: 1 });
    const gw = await startGateway(
      cleanup,
      {
        listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
        mcpServers: { docs: { url: docs.url }, wiki: { url: wiki.url } },
        clients: { alice: { token: '${ALICE_TOKEN}', groups: ['platform'] }, bob: { token: '${BOB_TOKEN}' } },
        plugins: [
          [
            '@switchyard/plugin-access',
            {
              default: 'allow',
              rules: [
                { effect: 'deny', clients: ['bob'], tools: range(18, (i) => `docs__tool_${i}`) },
                { effect: 'deny', clients: ['bob'], prompts: ['wiki__*'] },
              ],
            },
          ],
        ],
      },
      { env: { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB } },
    );
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: ALICE });
    const bob = await connectHttp(cleanup, gw.url, 'bob', { token: BOB });
    const docsTools = range(24, (i) => `docs__tool_${i}`);
    const wikiTools = range(2, (i) => `wiki__tool_${i}`);

    expect((await namePages(alice, 'tools/list')).names).toEqual([...docsTools, ...wikiTools].sort());
    const listsBefore = docs.server.stats.requests['tools/list'] ?? 0;
    const bobTools = await namePages(bob, 'tools/list');
    expect(bobTools.names).toEqual([...docsTools.slice(18), ...wikiTools].sort());
    // Four of docs' six pages are all denied: skipped inside the first page, never an empty page.
    for (const page of bobTools.pages) if (page.more) expect(page.names.length).toBeGreaterThan(0);
    expect(bobTools.pages).toHaveLength(2);
    expect((docs.server.stats.requests['tools/list'] ?? 0) - listsBefore).toBe(6);
    expect((await namePages(bob, 'prompts/list')).names).toEqual(['docs__prompt_0', 'docs__prompt_1']);

    await expect(
      bob.request({ method: 'tools/call', params: { name: 'docs__tool_3', arguments: {} } }),
    ).rejects.toMatchObject(FORBIDDEN);
    await expect(
      bob.request({ method: 'prompts/get', params: { name: 'wiki__prompt_0' } }),
    ).rejects.toMatchObject(FORBIDDEN);
    expect(docs.server.stats.toolCalls).toEqual({});
    expect(wiki.server.stats.promptGets).toEqual({});
    await expect(
      bob.request({ method: 'tools/call', params: { name: 'docs__tool_20', arguments: { text: 'x' } } }),
    ).resolves.toMatchObject({ structuredContent: { tool: 'tool_20' } });
    await expect(
      alice.request({ method: 'tools/call', params: { name: 'docs__tool_3', arguments: {} } }),
    ).resolves.toBeDefined();
    expect(docs.server.stats.toolCalls).toEqual({ tool_20: 1, tool_3: 1 });
  });

  it('refuses to start on invalid rules, naming the option (exit code 2)', async () => {
    const file = await writeConfig(cleanup, {
      mcpServers: {},
      plugins: [
        [
          '@switchyard/plugin-access',
          {
            rules: [
              { effect: 'allow' },
              { effect: 'permit' },
              { effect: 'deny', tools: ['gh__search.repos'] },
            ],
          },
        ],
      ],
    });
    const gw = spawnGateway(cleanup, ['--config', file]);
    expect(await gw.exited).toBe(2);
    expect(gw.stderr()).toMatch(
      /plugin error \(PLUGIN_INVALID_OPTIONS\): Plugin @switchyard\/plugin-access \(\$\.plugins\[0\]\): options\.rules\[1\]\.effect: expected "allow" or "deny", got "permit"; /,
    );
    expect(gw.stderr()).toMatch(
      /; options\.rules\[2\]\.tools\[0\]: can never match: .*, got "gh__search\.repos"\n/,
    );
  });
});
