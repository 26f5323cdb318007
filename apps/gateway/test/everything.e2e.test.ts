import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  collectNotifications,
  connectHttp,
  EVERYTHING_CLI,
  eventually,
  listAll,
  startGateway,
} from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

type Item = Record<string, unknown>;

const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';

/**
 * server-everything over stdio behind the gateway, next to a paged testkit ("paged": 9 resources in pages of
 * 4) so that the merged listing really spans pages; plus a direct v1 stdio client of server-everything.
 */
async function setup() {
  const paged = new TestServer({ name: 'paged', resources: 9, pageSize: 4 });
  const http = await paged.listenHttp();
  cleanup.add(() => paged.close());
  const gw = await startGateway(cleanup, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: {
      everything: { command: process.execPath, args: [EVERYTHING_CLI, 'stdio'] },
      paged: { url: http.url },
    },
  });
  const direct = new V1Client({ name: 'direct-everything', version: '1.0.0' });
  await direct.connect(
    new V1StdioClientTransport({
      command: process.execPath,
      args: [EVERYTHING_CLI, 'stdio'],
      stderr: 'pipe',
    }),
  );
  cleanup.add(() => direct.close());
  const resources: Item[] = [];
  let cursor: string | undefined;
  do {
    const page = await direct.listResources(cursor ? { cursor } : {});
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor);
  const templates = (await direct.listResourceTemplates()).resourceTemplates as Item[];
  return { gw, direct, resources, templates };
}

const prefix = (items: Item[], field: 'uri' | 'uriTemplate' = 'uri') =>
  items.map((item) => ({ ...item, [field]: `everything+${item[field]}` }));

const ours = (items: Item[], field: 'uri' | 'uriTemplate' = 'uri') =>
  items.filter((item) => String(item[field]).startsWith('everything+'));

/** Resource reads of server-everything templates carry a timestamp: compare everything else. */
function expectDynamicRead(contents: Item[], uri: string, id: number) {
  expect(contents).toHaveLength(1);
  const [c] = contents;
  expect(c?.uri).toBe(uri);
  const text = 'blob' in c! ? Buffer.from(String(c.blob), 'base64').toString() : String(c!.text);
  expect(text).toMatch(new RegExp(`^Resource ${id}: This is a `));
}

describe('server-everything behind the gateway', () => {
  it('v2 client over HTTP: full enumeration, reads, templates, completion and subscriptions match', async () => {
    const { gw, direct, resources, templates } = await setup();
    expect(resources.length).toBeGreaterThan(0);
    const client = await connectHttp(cleanup, gw.url);

    const listing = await listAll(client);
    expect(listing.pages).toBe(3); // paged: 4 + 4 + 1; everything: one page
    const uris = listing.items.map((r) => r.uri as string);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toHaveLength(resources.length + 9);
    expect(ours(listing.items)).toEqual(prefix(resources));

    const listedTemplates = await listAll(client, 'resources/templates/list');
    expect(ours(listedTemplates.items, 'uriTemplate')).toEqual(prefix(templates, 'uriTemplate'));

    for (const resource of resources) {
      const uri = resource.uri as string;
      const expected = (await direct.readResource({ uri })).contents as Item[];
      const got = await client.request({ method: 'resources/read', params: { uri: `everything+${uri}` } });
      expect(got.contents).toEqual(prefix(expected));
    }
    const text = await client.request({
      method: 'resources/read',
      params: { uri: 'everything+demo://resource/dynamic/text/5' },
    });
    expectDynamicRead(text.contents, 'everything+demo://resource/dynamic/text/5', 5);
    const blob = await client.request({
      method: 'resources/read',
      params: { uri: 'everything+demo://resource/dynamic/blob/6' },
    });
    expectDynamicRead(blob.contents, 'everything+demo://resource/dynamic/blob/6', 6);
    // server-everything refuses a non-integer id; the error comes back as an error, not a crash.
    await expect(
      client.request({
        method: 'resources/read',
        params: { uri: 'everything+demo://resource/dynamic/text/x' },
      }),
    ).rejects.toBeDefined();

    if (direct.getServerCapabilities()?.completions) {
      expect(client.getServerCapabilities()?.completions).toBeDefined();
      const argument = { name: 'resourceId', value: '42' };
      const viaGateway = await client.request({
        method: 'completion/complete',
        params: { ref: { type: 'ref/resource', uri: `everything+${TEXT_TEMPLATE}` }, argument },
      });
      const fromDirect = await direct.complete({
        ref: { type: 'ref/resource', uri: TEXT_TEMPLATE },
        argument,
      });
      expect(viaGateway.completion).toEqual(fromDirect.completion);
      expect(viaGateway.completion.values).toEqual(['42']);
    }

    const first = `everything+${resources[0]!.uri}`;
    await expect(client.subscribeResource({ uri: first })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri: first })).resolves.toEqual({});
    await expect(
      client.subscribeResource({ uri: 'everything+demo://resource/dynamic/text/7' }),
    ).resolves.toEqual({});
  });

  // Log messages an upstream sends while handling a subscribe reach the session that subscribed.
  it('delivers the log message the upstream sends while handling a subscribe to the subscriber', async () => {
    const { gw, resources } = await setup();
    const client = await connectHttp(cleanup, gw.url);
    const messages = collectNotifications(client, 'notifications/message');
    await client.subscribeResource({ uri: `everything+${resources[0]!.uri}` });
    // The upstream sends the message before its response, and the gateway forwards at once: 3 s is ample.
    await eventually(
      () =>
        messages.some((m) =>
          String(m.data).includes(`Subscribe Resource request for URI: ${resources[0]!.uri}`),
        ),
      'the upstream log message about the subscription',
      3_000,
    );
  });

  it('v1 client over Streamable HTTP: explicit-cursor enumeration, reads, templates, completion, subscriptions', async () => {
    const { gw, direct, resources, templates } = await setup();
    const client = new V1Client({ name: 'v1-http', version: '1.0.0' });
    await client.connect(new V1StreamableHTTPClientTransport(new URL(gw.url)));
    cleanup.add(() => client.close());
    expect(client.getServerVersion()?.name).toBe('switchyard');

    const listed: Item[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      pages += 1;
      listed.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor && pages < 100);
    expect(pages).toBe(3);
    expect(new Set(listed.map((r) => r.uri)).size).toBe(listed.length);
    expect(listed).toHaveLength(resources.length + 9);
    expect(ours(listed)).toEqual(prefix(resources));

    const listedTemplates = (await client.listResourceTemplates()).resourceTemplates as Item[];
    expect(ours(listedTemplates, 'uriTemplate')).toEqual(prefix(templates, 'uriTemplate'));

    for (const resource of resources.slice(0, 3)) {
      const uri = resource.uri as string;
      const expected = (await direct.readResource({ uri })).contents as Item[];
      expect((await client.readResource({ uri: `everything+${uri}` })).contents).toEqual(prefix(expected));
    }
    const text = await client.readResource({ uri: 'everything+demo://resource/dynamic/text/8' });
    expectDynamicRead(text.contents as Item[], 'everything+demo://resource/dynamic/text/8', 8);
    // server-everything says "not found" with -32602 (SDK v2, both eras): a 2025 client gets -32002 (DESIGN §9).
    const missing = 'everything+demo://resource/static/document/nope.md';
    await expect(client.readResource({ uri: missing })).rejects.toMatchObject({
      code: -32002,
      data: { reason: 'resource_not_found', uri: missing, upstream: 'everything' },
    });

    if (direct.getServerCapabilities()?.completions) {
      const completion = await client.complete({
        ref: { type: 'ref/resource', uri: `everything+${TEXT_TEMPLATE}` },
        argument: { name: 'resourceId', value: '9' },
      });
      expect(completion.completion.values).toEqual(['9']);
    }

    const uri = `everything+${resources.at(-1)!.uri}`;
    await expect(client.subscribeResource({ uri })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri })).resolves.toEqual({});
  });
});
