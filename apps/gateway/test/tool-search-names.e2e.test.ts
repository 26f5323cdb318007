import type { Client } from '@modelcontextprotocol/client';
import type { TestServer } from '@switchyard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, type GatewayProcess, httpUpstream, startGateway } from './support/harness.js';
import { type ClientEra, connectOverHttp, interactiveClient } from './support/interactive.js';

// Names on endpoints that search (DESIGN §13), through the real CLI over testkit upstreams, SDK clients of
// both eras: the gateway's own search_tools and call_tool shadow an unprefixed upstream's tools of those
// names everywhere; an alwaysList lists each tool once; and a completion ref an endpoint does not expose
// is refused as the root endpoint refuses one nobody serves.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());

let gw: GatewayProcess;
let flat: TestServer;

beforeAll(async () => {
  const flatUp = await httpUpstream(shared, {
    name: 'flat',
    tools: 0,
    toolNames: ['search_tools', 'call_tool', 'unique_flat_widget'],
  });
  flat = flatUp.server;
  const alpha = await httpUpstream(shared, {
    name: 'alpha',
    tools: 3,
    prompts: 2,
    templates: 1,
    completions: ['apple', 'banana'],
  });
  gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { flat: { url: flatUp.url, prefix: false }, alpha: { url: alpha.url } },
    virtualServers: {
      // Exposes the upstream's search_tools and call_tool; `plain` exposes none of that name.
      flatvs: { servers: ['flat', 'alpha'], toolSearch: {} },
      plain: { servers: ['alpha'], toolSearch: {} },
      dup: {
        servers: ['*'],
        toolSearch: {
          alwaysList: ['alpha__tool_1', 'alpha__tool_1', 'call_tool', 'search_tools', 'call_tool'],
        },
      },
      one: {
        servers: ['alpha'],
        prompts: { allow: ['alpha__prompt_0'] },
        resources: { deny: ['alpha+test://alpha/items/*'] },
      },
    },
  });
}, 60_000);

const connect = async (era: ClientEra, path: string) => {
  const { client } = interactiveClient(era);
  return connectOverHttp(cleanup, client, `${gw.url}${path}`);
};

/** How a request was refused, its name (or URI) in the message replaced by N. */
async function refusal(run: Promise<unknown>, name?: string) {
  const error = (await run.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: number; message: string; data?: { reason?: string } } | undefined;
  expect(error, 'refused').toBeDefined();
  const message = name === undefined ? error!.message : error!.message.replaceAll(name, 'N');
  return { code: error!.code, reason: error!.data?.reason, message };
}

async function search(client: Client, query: string): Promise<string[]> {
  const result = (await client.callTool({ name: 'search_tools', arguments: { query, limit: 20 } })) as {
    structuredContent: { tools: { name: string; description?: string }[] };
  };
  return result.structuredContent.tools.map((t) => t.name);
}

describe.each(['legacy', 'modern'] as ClientEra[])('a %s client', (era) => {
  it("never finds or reaches an upstream's search_tools or call_tool: the gateway's shadow them", async () => {
    // Found from outside: search returned the upstream's two, call_tool {name: "call_tool"} reached the
    // upstream's, and call_tool {name: "search_tools"} ran the gateway's search here but not elsewhere.
    const c = await connect(era, '/flatvs');
    const listed = (await c.listTools()).tools;
    expect(listed.map((t) => [t.name, t.title])).toEqual([
      ['search_tools', 'Search tools'],
      ['call_tool', 'Call a tool'],
    ]);
    const found = await search(c, 'call tool search tools unique flat widget');
    expect(found).toContain('unique_flat_widget');
    expect(found).not.toContain('search_tools');
    expect(found).not.toContain('call_tool');
    expect(
      await c.callTool({
        name: 'call_tool',
        arguments: { name: 'unique_flat_widget', arguments: { text: 'w' } },
      }),
    ).toMatchObject({ structuredContent: { tool: 'unique_flat_widget' } });

    const before = JSON.stringify(flat.stats.toolCalls);
    const plain = await connect(era, '/plain');
    for (const name of ['call_tool', 'search_tools']) {
      const wrapped = (client: Client) =>
        refusal(client.callTool({ name: 'call_tool', arguments: { name, arguments: { query: 'widget' } } }));
      const here = await wrapped(c);
      expect(here).toMatchObject({ code: -32602, reason: 'invalid_name' });
      expect(here.message).toContain(`"${name}" is the gateway's own`);
      expect(await wrapped(plain)).toEqual(here);
    }
    expect(JSON.stringify(flat.stats.toolCalls)).toBe(before);
    expect(before).not.toContain('"call_tool"');
  });

  it('lists each alwaysList tool once, and the gateway tools once whatever an upstream is named', async () => {
    // Found from outside: an entry given twice listed its tool twice.
    const c = await connect(era, '/dup');
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['alpha__tool_1', 'search_tools', 'call_tool']);
    expect(tools.find((t) => t.name === 'call_tool')?.title).toBe('Call a tool');
  });

  it('refuses a completion ref a virtual server hides exactly as the root refuses an unknown one', async () => {
    // Found from outside: the virtual server answered "completion/complete needs params.ref" without a
    // reason, where the root endpoint answered prompt_not_found.
    const one = await connect(era, '/one');
    const root = await connect(era, '');
    const argument = { name: 'id', value: '' };
    const prompt = (client: Client, name: string) =>
      refusal(client.complete({ ref: { type: 'ref/prompt', name }, argument }), name);
    const rootUnknown = await prompt(root, 'nope__prompt');
    expect(rootUnknown).toMatchObject({ code: -32602, reason: 'prompt_not_found' });
    expect(await prompt(one, 'nope__prompt')).toEqual(rootUnknown);
    expect(await prompt(one, 'alpha__prompt_1')).toEqual(rootUnknown);
    expect(
      await one.complete({ ref: { type: 'ref/prompt', name: 'alpha__prompt_0' }, argument }),
    ).toBeDefined();

    const template = (client: Client, uri: string) =>
      refusal(client.complete({ ref: { type: 'ref/resource', uri }, argument }), uri);
    const rootNone = await template(root, 'nope+test://x/{id}');
    expect(rootNone).toMatchObject({ code: -32602 });
    expect(rootNone.message).toContain("Unknown resource template 'N'");
    expect(await template(one, 'nope+test://x/{id}')).toEqual(rootNone);
    expect(await template(one, 'alpha+test://alpha/items/{id}')).toEqual(rootNone);
    expect(
      (await root.complete({ ref: { type: 'ref/resource', uri: 'alpha+test://alpha/items/{id}' }, argument }))
        .completion.values,
    ).toEqual(['apple', 'banana']);
  });
});
