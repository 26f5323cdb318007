import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Catalog, catalogClients, startCatalog, withoutModernFields } from './support/catalog.js';
import { Cleanup, collectNotifications, connectHttp, eventually } from './support/harness.js';
import { errorOf, type Json, listPages, names } from './support/named.js';

// Tools through the gateway CLI, from every downstream transport and era (see support/catalog.ts for
// the upstreams: legacy HTTP, stdio, modern HTTP, one that never comes up, and one showing _meta).

const EXPOSED = /^[A-Za-z0-9_-]{1,64}$/;
const BEHAVIOUR = ['echo', 'slow', 'fail', 'throw', 'link', 'elicit', 'sample', 'roots', 'log'];

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());
let fx: Catalog;
beforeAll(async () => {
  fx = await startCatalog(shared);
}, 30_000);
const CLIENTS = catalogClients(cleanup, () => fx);

const EXPECTED_TOOLS = [
  ...Array.from({ length: 5 }, (_, i) => `web__tool_${i}`),
  ...BEHAVIOUR.map((b) => `web__${b}`),
  ...Array.from({ length: 3 }, (_, i) => `local__tool_${i}`),
  'mod__tool_0',
  'mod__tool_1',
  'meta__inspect',
].sort();

describe.each(Object.keys(CLIENTS))('tools through the CLI, %s client', (kind) => {
  const connect = () => CLIENTS[kind]!();

  it('sees the era it asked for, and tools advertised', async () => {
    const client = await connect();
    expect(client.getProtocolEra()).toBe(kind === 'HTTP modern' ? 'modern' : 'legacy');
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
  });

  it('lists tools page by page: the longest upstream sets the pages, definitions untouched', async () => {
    const client = await connect();
    const tools = await listPages(client, 'tools/list');
    expect(tools.pages).toBe(7); // web: 14 tools in pages of 2; local: 2 pages; mod, meta: 1
    expect(names(tools.items).sort()).toEqual(EXPECTED_TOOLS);
    for (const name of names(tools.items)) expect(name).toMatch(EXPOSED);
    // The down upstream is named on the pages it could not contribute to.
    expect(tools.metas[0]).toMatchObject({ 'switchyard/unavailable': ['down'] });
    const direct = await listPages(fx.direct, 'tools/list');
    for (const tool of direct.items) {
      expect(tools.items.find((t) => t.name === `web__${tool.name}`)).toEqual({
        ...tool,
        name: `web__${tool.name}`,
      });
    }
    expect(tools.items.find((t) => t.name === 'web__tool_3')?._meta).toEqual({ 'testkit/index': 3 });
    expect(tools.items.find((t) => t.name === 'meta__inspect')?._meta).toEqual({
      'acme/tool': { version: 3 },
    });
  });

  it('calls tools: results, structuredContent, isError and upstream errors pass through untouched', async () => {
    const client = await connect();
    const call = (name: string, args: Json = {}) =>
      client.request({ method: 'tools/call', params: { name, arguments: args } }) as Promise<Json>;
    const directCall = (name: string, args: Json = {}) =>
      fx.direct.request({ method: 'tools/call', params: { name, arguments: args } }) as Promise<Json>;
    const before = { ...fx.web.server.stats.toolCalls };

    const echoed = await call('web__tool_1', { text: kind, n: 1 });
    expect(withoutModernFields(echoed)).toEqual(await directCall('tool_1', { text: kind, n: 1 }));
    expect(echoed.structuredContent).toEqual({ tool: 'tool_1', arguments: { text: kind, n: 1 } });
    const failed = await call('web__fail', { message: 'nope' });
    expect(withoutModernFields(failed)).toEqual(await directCall('fail', { message: 'nope' }));
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'nope' }] });
    const upstreamError = (await errorOf(directCall('throw'))) as { code: number; message: string };
    expect(upstreamError.code).toBe(-32602);
    expect(await errorOf(call('web__throw'))).toMatchObject({
      code: -32602,
      message: upstreamError.message,
    });
    expect(fx.web.server.stats.toolCalls.tool_1).toBe((before.tool_1 ?? 0) + 2); // direct + gateway
    expect(fx.web.server.stats.toolCalls.throw).toBe((before.throw ?? 0) + 2);

    // The stdio and the modern upstream's tools, routed by their exposed names.
    expect((await call('local__tool_2', { a: 1 })).structuredContent).toEqual({
      tool: 'tool_2',
      arguments: { a: 1 },
    });
    const modern = await call('mod__tool_1');
    expect(modern.structuredContent).toEqual({ tool: 'tool_1', arguments: {} });
    // The modern upstream's own envelope stays behind: a modern client sees the gateway's serverInfo,
    // a legacy one none at all.
    expect(JSON.stringify(modern)).not.toMatch(/"name":"mod"/);
    if (client.getProtocolEra() === 'legacy')
      expect(JSON.stringify(modern)).not.toContain('io.modelcontextprotocol');
  });

  it('passes _meta untouched both ways: request _meta to the upstream, result and content _meta back', async () => {
    const client = await connect();
    const result = (await client.request({
      method: 'tools/call',
      params: { name: 'meta__inspect', arguments: { a: [1] }, _meta: { 'acme/request': kind } },
    })) as Json;
    expect(withoutModernFields(result)).toEqual({
      _meta: { 'acme/trace': 'trace-42', 'acme/nested': { a: [1, 2] } },
      content: [
        {
          type: 'text',
          text: 'inspected',
          annotations: { audience: ['user'], priority: 0.5 },
          _meta: { 'acme/content': true },
        },
      ],
      structuredContent: { arguments: { a: [1] }, requestMeta: expect.anything() },
      isError: false,
    });
    // The upstream got the caller's _meta (the gateway may add its own progress token, nothing else).
    const { progressToken: _token, ...requestMeta } = (result.structuredContent as Json).requestMeta as Json;
    expect(requestMeta).toEqual({ 'acme/request': kind });
  });

  it('exposes the resources a tool links and embeds as name+uri, readable through the gateway', async () => {
    const client = await connect();
    const linked = (await client.request({
      method: 'tools/call',
      params: { name: 'web__link', arguments: {} },
    })) as Json;
    expect(linked.content).toEqual([
      { type: 'resource_link', uri: 'web+test://web/r/0', name: 'r0', mimeType: 'text/plain' },
      {
        type: 'resource',
        resource: { uri: 'web+test://web/r/0', mimeType: 'text/plain', text: 'resource 0' },
      },
    ]);
    const read = await client.request({ method: 'resources/read', params: { uri: 'web+test://web/r/0' } });
    expect(read.contents).toEqual([
      { uri: 'web+test://web/r/0', mimeType: 'text/plain', text: 'resource 0' },
    ]);
  });

  it("relays the upstream's log messages of a call to the caller only", async () => {
    const client = await connect();
    const bystander = await connectHttp(cleanup, fx.gw.httpUrl, 'bystander');
    const mine = collectNotifications(client, 'notifications/message');
    const theirs = collectNotifications(bystander, 'notifications/message');
    // A modern client asks for log messages per request (SEP-2577); a legacy one gets them by default.
    const _meta = kind === 'HTTP modern' ? { 'io.modelcontextprotocol/logLevel': 'debug' } : {};
    await client.request({
      method: 'tools/call',
      params: { name: 'web__log', arguments: { message: `for ${kind}` }, _meta },
    });
    // Over modern HTTP the message belongs on the call's own response stream, ahead of its result.
    await eventually(() => mine.length > 0, `the log message on the ${kind} client`, 2_000);
    expect(mine).toEqual([{ level: 'info', logger: 'web', data: `for ${kind}` }]);
    await bystander.ping();
    expect(theirs).toEqual([]);
  });

  it('refuses unknown tools and bad params with -32602 saying what to do, and a down upstream with -32003', async () => {
    const client = await connect();
    for (const params of [{ arguments: {} }, { name: 'web__echo', arguments: ['positional'] }]) {
      expect(await errorOf(client.request({ method: 'tools/call', params: params as never }))).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/params\.(name|arguments)/),
      });
    }
    // A cursor of another listing is no tools/list cursor.
    const resources = await client.request({ method: 'resources/list', params: {} });
    expect(resources.nextCursor).toBeDefined();
    expect(
      await errorOf(client.request({ method: 'tools/list', params: { cursor: resources.nextCursor } })),
    ).toMatchObject({ code: -32602, data: { reason: 'invalid_cursor' } });
    expect(
      await errorOf(client.request({ method: 'tools/call', params: { name: 'web__nope', arguments: {} } })),
    ).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool 'web__nope'.*tools\/list/),
      data: { reason: 'tool_not_found' },
    });
    expect(
      await errorOf(
        client.request({ method: 'tools/call', params: { name: 'down__tool_0', arguments: {} } }),
      ),
    ).toMatchObject({ code: -32003, data: { reason: 'upstream_unavailable', upstream: 'down' } });
  });
});
