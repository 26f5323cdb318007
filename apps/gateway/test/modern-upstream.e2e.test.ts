import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { controlClient, type TestServerOptions } from '@switchyard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  eventually,
  httpUpstream,
  listAll,
  nextNotification,
  rawInitialize,
  rawPost,
  readControlUrl,
  startGateway,
  TESTKIT_CLI,
  tempDir,
} from './support/harness.js';

// Bridging: legacy clients of the gateway in front of upstreams that speak the modern era (2026-07-28).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const httpListen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

async function bridged(owner = cleanup) {
  const upstream = (options: TestServerOptions) => httpUpstream(owner, options);
  const mod = await upstream({
    name: 'mod',
    modern: true,
    resources: 12,
    pageSize: 5,
    cacheTtlMs: 60_000,
    cacheScope: 'public',
  });
  const old = await upstream({ name: 'old', resources: 3 });
  const dir = await tempDir(owner);
  const controlFile = join(dir, 'stdio.control');
  const gw = await startGateway(owner, {
    listen: httpListen,
    mcpServers: {
      mod: { url: mod.url },
      old: { url: old.url },
      local: {
        command: process.execPath,
        args: [TESTKIT_CLI, '--name', 'local', '--resources', '2', '--modern', '--control-file', controlFile],
      },
    },
  });
  return { mod, old, gw, local: () => readControlUrl(controlFile).then(controlClient) };
}

/**
 * One bridged() gateway for the tests that leave its upstreams as they were: each connects its own
 * client, and only one of them subscribes to the modern HTTP upstream (its listen count is read relative
 * to what that test saw first). The test that resets the upstream's connections starts its own.
 */
const shared = new Cleanup();
afterAll(() => shared.run());
let sharedBridged: ReturnType<typeof bridged> | undefined;
const sharedGateway = () => {
  sharedBridged ??= bridged(shared);
  return sharedBridged;
};

describe('legacy clients in front of modern upstreams', () => {
  it('detects each upstream era and serves them all to a legacy client', async () => {
    const { gw } = await sharedGateway();
    await gw.waitForLine(/\[switchyard:upstream:mod\] connected .*era="modern"/);
    await gw.waitForLine(/\[switchyard:upstream:local\] connected .*era="modern"/);
    await gw.waitForLine(/\[switchyard:upstream:old\] connected .*era="legacy"/);
    const client = await connectHttp(cleanup, gw.url);
    expect(client.getProtocolEra()).toBe('legacy');
    const { items, pages } = await listAll(client);
    expect(pages).toBe(3); // mod: 12 resources, 5 per page
    expect(items).toHaveLength(12 + 3 + 2);
    expect(new Set(items.map((r) => r.uri)).size).toBe(17);
    const read = await client.request({ method: 'resources/read', params: { uri: 'mod+test://mod/r/7' } });
    expect(read.contents).toEqual([
      { uri: 'mod+test://mod/r/7', mimeType: 'text/plain', text: 'resource 7' },
    ]);
    const stdio = await client.request({
      method: 'resources/read',
      params: { uri: 'local+test://local/r/1' },
    });
    expect(stdio.contents[0]?.uri).toBe('local+test://local/r/1');
  });

  it('never passes the modern-only fields on to a legacy client', async () => {
    const { gw, mod } = await sharedGateway();
    // Direct, in the modern era, the upstream's results carry its freshness hints...
    const direct = new Client({ name: 'direct', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    cleanup.add(() => direct.close());
    await direct.connect(new StreamableHTTPClientTransport(new URL(mod.url)));
    expect(direct.getProtocolEra()).toBe('modern');
    const hinted = await direct.request({ method: 'resources/read', params: { uri: 'test://mod/r/1' } });
    expect(hinted).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    const { sessionId, protocolVersion } = await rawInitialize(gw.url);
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion };
    // ...through the gateway a legacy session sees none of them, on lists or reads.
    for (const [id, method, params] of [
      [1, 'resources/list', {}],
      [2, 'resources/read', { uri: 'mod+test://mod/r/1' }],
    ] as const) {
      const res = await rawPost(gw.url, JSON.stringify({ jsonrpc: '2.0', id, method, params }), headers);
      const result = (res.json as { result: Record<string, unknown> }).result;
      expect(result).toBeDefined();
      expect(Object.keys(result)).not.toContain('ttlMs');
      expect(Object.keys(result)).not.toContain('cacheScope');
      expect(Object.keys(result)).not.toContain('resultType');
      expect(JSON.stringify(result)).not.toContain('io.modelcontextprotocol/serverInfo');
    }
  });

  it("maps a legacy client's resources/subscribe onto a listen stream of the modern upstream", async () => {
    const { gw, mod } = await sharedGateway();
    const client = await connectHttp(cleanup, gw.url);
    const base = await eventually(
      () => (mod.server.stats.listens !== undefined ? mod.server.stats.listens : undefined),
      'the listen count',
    );
    await client.subscribeResource({ uri: 'mod+test://mod/r/3' });
    await eventually(() => mod.server.stats.listens === base + 1, 'a listen stream for the subscription');
    const updated = nextNotification(client, 'notifications/resources/updated');
    await mod.server.triggerUpdated('test://mod/r/3');
    // Exactly the 2025 params: not the id of the gateway's own listen stream to the upstream (found from
    // outside: `_meta["io.modelcontextprotocol/subscriptionId"]` reached the 2025 client).
    expect(await updated).toEqual({ uri: 'mod+test://mod/r/3' });
    await client.unsubscribeResource({ uri: 'mod+test://mod/r/3' });
    await eventually(() => mod.server.stats.listens === base, 'the listen stream to close');
  });

  it('re-opens the listen stream when the modern upstream drops it, and updates flow again', async () => {
    const { gw, mod } = await bridged();
    const client = await connectHttp(cleanup, gw.url);
    await client.subscribeResource({ uri: 'mod+test://mod/r/4' });
    const base = await eventually(() => mod.server.stats.listens, 'the listen streams');
    // The upstream resets every connection it has: listen streams included.
    mod.server.failNext({ method: 'resources/read', mode: 'crash' });
    await client
      .request({ method: 'resources/read', params: { uri: 'mod+test://mod/r/0' } })
      .catch(() => undefined);
    await eventually(() => (mod.server.stats.listens ?? 0) < (base ?? 0), 'the listen streams to drop');
    await eventually(() => mod.server.stats.listens === base, 'the listen streams to be open again', 15_000);
    const updated = nextNotification(client, 'notifications/resources/updated');
    await mod.server.triggerUpdated('test://mod/r/4');
    expect(await updated).toMatchObject({ uri: 'mod+test://mod/r/4' });
  });

  it('re-emits a modern upstream list change to legacy sessions', async () => {
    const { gw, mod } = await sharedGateway();
    const client = await connectHttp(cleanup, gw.url);
    await eventually(() => (mod.server.stats.listens ?? 0) >= 1, 'the gateway list-change stream');
    const changed = nextNotification(client, 'notifications/resources/list_changed');
    await mod.server.triggerListChanged();
    await expect(changed).resolves.toBeDefined();
  });

  it('subscribes through a modern stdio upstream too', async () => {
    const { gw, local } = await sharedGateway();
    const client = await connectHttp(cleanup, gw.url);
    await client.subscribeResource({ uri: 'local+test://local/r/0' });
    const control = await local();
    await eventually(async () => ((await control.stats()).listens ?? 0) >= 1, 'the stdio listen stream');
    const updated = nextNotification(client, 'notifications/resources/updated');
    await control.updated('test://local/r/0');
    expect(await updated).toEqual({ uri: 'local+test://local/r/0' });
  });
});
