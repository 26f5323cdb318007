import type { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  EVERYTHING_CLI,
  freePort,
  listAll,
  startGateway,
  startProcess,
} from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const httpListen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

/** server-everything in legacy HTTP+SSE mode on a free port; resolves with its /sse endpoint. */
async function everythingSse(): Promise<string> {
  const port = await freePort();
  const { proc } = await startProcess({
    name: 'server-everything',
    args: [EVERYTHING_CLI, 'sse'],
    env: { PORT: String(port) },
    ready: { line: /Server is running on port/, timeoutMs: 15_000 },
  });
  cleanup.add(() => proc.stop());
  return `http://127.0.0.1:${port}/sse`;
}

/** A v1 SDK client connected straight to the SSE server (the reference the gateway must match). */
async function directSse(url: string): Promise<V1Client> {
  const client = new V1Client({ name: 'direct-sse', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  return client;
}

const prefixed = (name: string, items: Record<string, unknown>[], field: 'uri' | 'uriTemplate' = 'uri') =>
  items.map((item) => ({ ...item, [field]: `${name}+${item[field]}` }));

async function read(client: Client, uri: string) {
  return (await client.request({ method: 'resources/read', params: { uri } })).contents as Record<
    string,
    unknown
  >[];
}

describe('legacy HTTP+SSE upstream (server-everything)', () => {
  it('"transport": "sse": lists, reads, completes and subscribes exactly like a direct SSE client', async () => {
    const url = await everythingSse();
    const gw = await startGateway(cleanup, {
      listen: httpListen,
      mcpServers: { old: { url, transport: 'sse' } },
    });
    await gw.waitForLine(/\[switchyard:upstream:old\] connected server="mcp-servers\/everything@/);
    const client = await connectHttp(cleanup, gw.url);
    const direct = await directSse(url);
    expect(client.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      completions: {},
    });

    const directList = await direct.listResources();
    expect(directList.nextCursor).toBeUndefined();
    expect(directList.resources.length).toBeGreaterThan(0);
    const { items } = await listAll(client);
    expect(items).toEqual(prefixed('old', directList.resources));

    const directTemplates = await direct.listResourceTemplates();
    const templates = await listAll(client, 'resources/templates/list');
    expect(templates.items).toEqual(prefixed('old', directTemplates.resourceTemplates, 'uriTemplate'));
    expect(templates.items.map((t) => t.uriTemplate)).toContain(
      'old+demo://resource/dynamic/text/{resourceId}',
    );

    // Every static document reads the same through the gateway, apart from the URI.
    for (const resource of directList.resources) {
      const expected = (await direct.readResource({ uri: resource.uri })).contents;
      expect(await read(client, `old+${resource.uri}`)).toEqual(prefixed('old', expected));
    }
    // Templated resources (their text carries a timestamp, so compare the shape).
    const [text] = await read(client, 'old+demo://resource/dynamic/text/3');
    expect(text).toMatchObject({
      uri: 'old+demo://resource/dynamic/text/3',
      mimeType: 'text/plain',
      text: expect.stringMatching(/^Resource 3: This is a plaintext resource created at /),
    });
    const [blob] = await read(client, 'old+demo://resource/dynamic/blob/4');
    expect(blob).toMatchObject({ uri: 'old+demo://resource/dynamic/blob/4', blob: expect.any(String) });
    expect(Buffer.from(blob!.blob as string, 'base64').toString()).toMatch(/^Resource 4: /);

    const ref = { type: 'ref/resource' as const, uri: 'demo://resource/dynamic/text/{resourceId}' };
    const argument = { name: 'resourceId', value: '12' };
    const completion = await client.request({
      method: 'completion/complete',
      params: { ref: { ...ref, uri: `old+${ref.uri}` }, argument },
    });
    expect(completion.completion).toEqual((await direct.complete({ ref, argument })).completion);

    const first = directList.resources[0]!.uri;
    await expect(client.subscribeResource({ uri: `old+${first}` })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri: `old+${first}` })).resolves.toEqual({});
  });

  it('"type": "sse" (the Claude Desktop / VS Code spelling) selects the SSE transport too', async () => {
    const url = await everythingSse();
    const gw = await startGateway(cleanup, {
      listen: httpListen,
      mcpServers: { legacy: { type: 'sse', url } },
    });
    const client = await connectHttp(cleanup, gw.url);
    const direct = await directSse(url);
    const directList = await direct.listResources();
    const { items, metas } = await listAll(client);
    expect(metas).toEqual([]); // the upstream was reachable: nothing reported unavailable
    expect(items).toEqual(prefixed('legacy', directList.resources));
    const uri = directList.resources.at(-1)!.uri;
    const expected = (await direct.readResource({ uri })).contents;
    expect(await read(client, `legacy+${uri}`)).toEqual(prefixed('legacy', expected));
  });
});
