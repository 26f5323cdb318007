import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { controlClient, type TestServerOptions } from '@switchyard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  Cleanup,
  collectNotifications,
  connectHttp,
  eventually,
  expectSwitchyardHandshake,
  httpUpstream,
  listAll,
  nextNotification,
  readControlUrl,
  TESTKIT_CLI,
  tempDir,
  writeConfig,
} from './support/harness.js';
import { connectStdio, connectStdioV1, isAlive, spawnStdioGateway } from './support/stdio.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const upstream = (options: TestServerOptions) => httpUpstream(cleanup, options);

/** For the fixtures a describe's read-only tests share (one gateway process for all of them). */
const shared = new Cleanup();
afterAll(() => shared.run());

/**
 * A stdio-only gateway config (no "listen") in front of an in-process HTTP testkit ("web": 12 resources in
 * pages of 5) and a stdio testkit child ("local": 4 resources in pages of 2) with a control file.
 */
async function stdioSetup(owner = cleanup) {
  const web = await httpUpstream(owner, { name: 'web', resources: 12, pageSize: 5 });
  const dir = await tempDir(owner);
  const controlFile = join(dir, 'local.control');
  const config = await writeConfig(owner, {
    mcpServers: {
      web: { url: web.url },
      local: {
        command: process.execPath,
        args: [
          TESTKIT_CLI,
          '--name',
          'local',
          '--resources',
          '4',
          '--page-size',
          '2',
          '--control-file',
          controlFile,
        ],
      },
    },
  });
  return { web, config, controlFile, local: () => readControlUrl(controlFile).then(controlClient) };
}

/**
 * Counts list_changed notifications from now on. The gateway also announces list_changed once its upstreams
 * are up, which a stdio client may receive just after connecting: a ping round trip first lets anything
 * already on the (ordered) stdio stream arrive, so `next()` waits for a notification sent after this point.
 */
async function listChangedCounter(client: Client) {
  const seen = collectNotifications(client, 'notifications/resources/list_changed');
  await client.ping();
  let expected = seen.length;
  return {
    next: async (what: string) => {
      expected += 1;
      await eventually(() => seen.length >= expected, what);
      expected = seen.length;
    },
  };
}

/** v1 has no auto-walk: follow nextCursor explicitly. */
async function listAllV1(client: V1Client) {
  const uris: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    pages += 1;
    uris.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
  } while (cursor && pages < 100);
  return { uris, pages };
}

const EXPECTED_URIS = [
  ...Array.from({ length: 12 }, (_, i) => `web+test://web/r/${i}`),
  ...Array.from({ length: 4 }, (_, i) => `local+test://local/r/${i}`),
].sort();

describe('gateway as a stdio server, v2 client', () => {
  // One gateway (and its upstreams) for the tests that only read through it; the tests that subscribe,
  // disconnect or change an upstream start their own.
  let readOnly: { client: Client; web: Awaited<ReturnType<typeof stdioSetup>>['web'] };
  beforeAll(async () => {
    const { config, web } = await stdioSetup(shared);
    const { client } = await connectStdio(shared, config);
    readOnly = { client, web };
  });

  it('initializes as switchyard with resource subscribe/listChanged and completions', async () => {
    await expectSwitchyardHandshake(readOnly.client);
  });

  it('lists a merged, paged catalogue and its templates', async () => {
    const { client } = readOnly;
    const { items, pages } = await listAll(client);
    expect(pages).toBe(3); // web: 3 pages of 5, local: 2 pages of 2
    const uris = items.map((r) => r.uri as string);
    expect(new Set(uris).size).toBe(uris.length);
    expect([...uris].sort()).toEqual(EXPECTED_URIS);
    const templates = await listAll(client, 'resources/templates/list');
    expect(templates.items.map((t) => t.uriTemplate).sort()).toEqual([
      'local+test://local/items/{id}',
      'web+test://web/items/{id}',
    ]);
  });

  it('reads static and templated resources from both upstreams, rewriting only the URI', async () => {
    const { client, web } = readOnly;
    const direct = await connectHttp(cleanup, web.url);
    for (const uri of ['test://web/r/3', 'test://web/items/42']) {
      const viaGateway = await client.request({ method: 'resources/read', params: { uri: `web+${uri}` } });
      const fromUpstream = await direct.request({ method: 'resources/read', params: { uri } });
      expect(viaGateway.contents).toEqual(
        fromUpstream.contents.map((c: Record<string, unknown>) => ({ ...c, uri: `web+${c.uri}` })),
      );
    }
    const local = await client.request({
      method: 'resources/read',
      params: { uri: 'local+test://local/r/1' },
    });
    expect(local.contents).toEqual([
      { uri: 'local+test://local/r/1', mimeType: 'text/plain', text: 'resource 1' },
    ]);
    const item = await client.request({
      method: 'resources/read',
      params: { uri: 'local+test://local/items/x7' },
    });
    expect(item.contents).toEqual([
      { uri: 'local+test://local/items/x7', mimeType: 'text/plain', text: 'item x7' },
    ]);
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'nobody+test://x' } }),
    ).rejects.toMatchObject({ code: -32602 }); // the v2 client normalizes the legacy -32002 to -32602
  });

  it('routes completion/complete to the template owner', async () => {
    const { client } = readOnly;
    for (const name of ['web', 'local']) {
      const result = await client.request({
        method: 'completion/complete',
        params: {
          ref: { type: 'ref/resource', uri: `${name}+test://${name}/items/{id}` },
          argument: { name: 'id', value: 'b' },
        },
      });
      expect(result.completion.values).toEqual(['beta']);
    }
  });

  it('subscribes, delivers updates with exposed URIs, and unsubscribes upstream', async () => {
    const { config, web, local } = await stdioSetup();
    const { client } = await connectStdio(cleanup, config);
    const seen = collectNotifications(client, 'notifications/resources/updated');

    await client.subscribeResource({ uri: 'web+test://web/r/1' });
    expect(web.server.stats.subscribed['test://web/r/1']).toBe(1);
    await web.server.triggerUpdated('test://web/r/1');
    await eventually(() => seen.length === 1, 'the update from the HTTP upstream');
    expect(seen[0]).toEqual({ uri: 'web+test://web/r/1' });

    const control = await local();
    await client.subscribeResource({ uri: 'local+test://local/r/2' });
    expect((await control.stats()).subscribed['test://local/r/2']).toBe(1);
    await control.updated('test://local/r/2');
    await eventually(() => seen.length === 2, 'the update from the stdio upstream');
    expect(seen[1]).toEqual({ uri: 'local+test://local/r/2' });

    await client.unsubscribeResource({ uri: 'web+test://web/r/1' });
    expect(web.server.stats.subscribed['test://web/r/1']).toBe(0);
    expect(web.server.stats.unsubscribeCalls).toBe(1);
    // After unsubscribing, an update of r/1 must not arrive; the later r/2 update proves delivery still works
    // (stdio notifications are ordered, and the web update was sent first).
    await web.server.triggerUpdated('test://web/r/1');
    await control.updated('test://local/r/2');
    await eventually(() => seen.length >= 3, 'the second stdio update');
    expect(seen.map((n) => n.uri)).toEqual([
      'web+test://web/r/1',
      'local+test://local/r/2',
      'local+test://local/r/2',
    ]);
  });

  it('releases upstream subscriptions when the stdio client goes away', async () => {
    const { config, web } = await stdioSetup();
    const { client, transport } = await connectStdio(cleanup, config);
    await client.subscribeResource({ uri: 'web+test://web/r/4' });
    expect(web.server.stats.subscribed['test://web/r/4']).toBe(1);
    const pid = transport.pid;
    await client.close(); // ends the gateway's stdin
    await eventually(
      () => web.server.stats.subscribed['test://web/r/4'] === 0,
      'the upstream unsubscribe on disconnect',
    );
    expect(web.server.stats.unsubscribeCalls).toBe(1); // an explicit resources/unsubscribe, not a dropped session
    await eventually(() => !(pid && isAlive(pid)), 'the gateway process to exit');
  });

  it('re-emits upstream list_changed', async () => {
    const { config, web, local } = await stdioSetup();
    const { client } = await connectStdio(cleanup, config);
    const changed = await listChangedCounter(client);
    web.server.setResourceCount(13);
    await web.server.triggerListChanged();
    await changed.next('list_changed from the HTTP upstream');
    const { items } = await listAll(client);
    expect(items.map((r) => r.uri)).toContain('web+test://web/r/12');

    await (await local()).listChanged();
    await changed.next('list_changed from the stdio upstream');
  });
});

describe('stdio and HTTP listeners together', () => {
  it('serves the stdio client and HTTP sessions from one process, notifying both', async () => {
    const web = await upstream({ name: 'web', resources: 3 });
    const config = await writeConfig(cleanup, {
      listen: { stdio: true, http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { web: { url: web.url } },
    });
    const { client, logs } = await connectStdio(cleanup, config);
    const [, url] = await logs.waitFor(/listening on (http:\/\/\S+)/);
    const http = await connectHttp(cleanup, url!);
    const viaStdio = await listAll(client);
    const viaHttp = await listAll(http);
    expect(viaHttp.items).toEqual(viaStdio.items);
    expect(viaStdio.items).toHaveLength(3);

    const stdioChanged = await listChangedCounter(client);
    const httpChanged = await listChangedCounter(http);
    await web.server.triggerListChanged();
    await stdioChanged.next('list_changed on stdio');
    await httpChanged.next('list_changed on HTTP');

    // Subscriptions from both listeners share one upstream subscription.
    await client.subscribeResource({ uri: 'web+test://web/r/0' });
    await http.subscribeResource({ uri: 'web+test://web/r/0' });
    expect(web.server.stats.subscribeCalls).toBe(1);
    const stdioUpdated = nextNotification(client, 'notifications/resources/updated');
    const httpUpdated = nextNotification(http, 'notifications/resources/updated');
    await web.server.triggerUpdated('test://web/r/0');
    expect(await stdioUpdated).toEqual({ uri: 'web+test://web/r/0' });
    expect(await httpUpdated).toEqual({ uri: 'web+test://web/r/0' });
  });
});

describe('gateway as a stdio server, v1 (legacy) SDK client', () => {
  it('initializes, lists with explicit cursors and reads', async () => {
    const { config } = await stdioSetup();
    const { client } = await connectStdioV1(cleanup, config);
    expect(client.getServerVersion()?.name).toBe('switchyard');
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });

    const { uris, pages } = await listAllV1(client);
    expect(pages).toBe(3);
    expect(new Set(uris).size).toBe(uris.length);
    expect([...uris].sort()).toEqual(EXPECTED_URIS);

    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'local+test://local/items/{id}',
      'web+test://web/items/{id}',
    ]);

    const read = await client.readResource({ uri: 'web+test://web/r/7' });
    expect(read.contents).toEqual([
      { uri: 'web+test://web/r/7', mimeType: 'text/plain', text: 'resource 7' },
    ]);
    const item = await client.readResource({ uri: 'local+test://local/items/9' });
    expect(item.contents).toEqual([
      { uri: 'local+test://local/items/9', mimeType: 'text/plain', text: 'item 9' },
    ]);

    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'web+test://web/items/{id}' },
      argument: { name: 'id', value: 'g' },
    });
    expect(completion.completion.values).toEqual(['gamma']);
    await expect(client.subscribeResource({ uri: 'web+test://web/r/0' })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri: 'web+test://web/r/0' })).resolves.toEqual({});
  });
});

describe('stdio wire hygiene and lifecycle', () => {
  it('writes only JSON-RPC to stdout, answers malformed lines, logs upstream stderr, exits 0 on stdin EOF', async () => {
    const { config, local } = await stdioSetup();
    const gw = spawnStdioGateway(cleanup, config);
    gw.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const init = await gw.waitForMessage((m) => m.id === 1, 'the initialize result');
    expect(init).toMatchObject({ jsonrpc: '2.0', result: { serverInfo: { name: 'switchyard' } } });
    gw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    gw.send({ jsonrpc: '2.0', id: 2, method: 'resources/list', params: {} });
    gw.send({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'nobody+test://x' } });
    gw.send('{not json');
    gw.send({ jsonrpc: '2.0', id: 7 });
    gw.send({ jsonrpc: '2.0', id: 8, method: 'nope/x' });
    gw.send({ jsonrpc: '2.0', id: 9, method: 'ping' });

    const list = await gw.waitForMessage((m) => m.id === 2, 'the resources/list result');
    expect((list.result as { resources: unknown[] }).resources.length).toBeGreaterThan(0);
    // Legacy era on the wire: resource not found is -32002, with the URI in data.
    expect(await gw.waitForMessage((m) => m.id === 3, 'the unknown read')).toMatchObject({
      error: { code: -32002, data: { uri: 'nobody+test://x' } },
    });
    const parse = await gw.waitForMessage(
      (m) => (m.error as { code?: number } | undefined)?.code === -32700,
      'the parse error',
    );
    expect(parse).toMatchObject({ jsonrpc: '2.0', id: null });
    expect(await gw.waitForMessage((m) => m.id === 7, 'the answer to id 7')).toMatchObject({
      error: { code: -32600 },
    });
    expect(await gw.waitForMessage((m) => m.id === 8, 'the answer to id 8')).toMatchObject({
      error: { code: -32601 },
    });
    // The gateway still serves after bad input.
    expect(await gw.waitForMessage((m) => m.id === 9, 'the ping result')).toMatchObject({ result: {} });

    // Every stdout line is a JSON-RPC 2.0 message; nothing else ever reaches stdout. Besides one answer per
    // request line, only notifications (the gateway announces list_changed once its upstreams are up).
    const messages = gw.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const [i, message] of messages.entries()) {
      expect(message.jsonrpc, gw.lines[i]).toBe('2.0');
      expect('result' in message || 'error' in message || 'method' in message, gw.lines[i]).toBe(true);
    }
    expect(messages.filter((m) => 'id' in m).map((m) => m.id)).toEqual(
      expect.arrayContaining([1, 2, 3, null, 7, 8, 9]),
    );
    expect(messages.filter((m) => 'id' in m)).toHaveLength(7);
    expect(
      messages.filter((m) => !('id' in m)).every((m) => m.method === 'notifications/resources/list_changed'),
    ).toBe(true);

    // Logs live on stderr, including the upstream's own stderr, attributed to its server name.
    expect(gw.stderr()).toMatch(
      /\[switchyard:upstream:local\] \[switchyard-testkit\] serving 'local' on stdio/,
    );
    expect(gw.stderr()).toMatch(/serving MCP on stdio/);

    // Closing stdin shuts the gateway down cleanly, and with it the stdio upstream.
    const control = await local();
    await expect(control.stats()).resolves.toBeDefined();
    const started = Date.now();
    gw.child.stdin?.end();
    expect(await gw.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    await eventually(
      () =>
        control.stats().then(
          () => false,
          () => true,
        ),
      'the stdio upstream (and its control API) to be gone',
    );
  });

  it('refuses empty batches, non-objects, a wrong jsonrpc version and a malformed _meta, and keeps serving', async () => {
    const { config } = await stdioSetup();
    const gw = spawnStdioGateway(cleanup, config);
    gw.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await gw.waitForMessage((m) => m.id === 1, 'the initialize result');
    gw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    gw.send('[]');
    gw.send('42');
    gw.send({ jsonrpc: '1.0', id: 'old', method: 'ping' });
    gw.send({ jsonrpc: '2.0', id: 'meta', method: 'ping', params: { _meta: 'x' } });
    // A batch: each malformed message answered with its own id, the well-formed one served.
    gw.send(
      '[{"jsonrpc":3,"method":"ping"},{"jsonrpc":3,"id":"in-batch","method":"ping"},{"jsonrpc":"2.0","id":"served","method":"ping"}]',
    );
    await gw.waitForMessage((m) => m.id === 'served' && 'result' in m, 'the batch ping served');
    gw.send({ jsonrpc: '2.0', id: 'last', method: 'ping' });
    await gw.waitForMessage((m) => m.id === 'last', 'the final ping');
    const errors = gw.lines
      .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } })
      .filter((m) => m.error);
    expect(errors).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: 'old', error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: 'meta', error: expect.objectContaining({ code: -32602 }) }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: 'in-batch', error: expect.objectContaining({ code: -32600 }) }),
    ]);
  });
});

describe('"prefix": false servers', () => {
  /** Two unprefixed servers sharing a URI space (collisions on r/0..r/2) and one prefixed server. */
  async function unprefixedSetup() {
    const first = await httpUpstream(shared, { name: 'first', uriBase: 'shared://x/', resources: 3 });
    const second = await httpUpstream(shared, {
      name: 'second',
      uriBase: 'shared://x/',
      resources: 5,
      templates: 2,
    });
    const web = await httpUpstream(shared, { name: 'web', resources: 2 });
    for (const [name, u] of [
      ['first', first],
      ['second', second],
    ] as const) {
      for (let i = 0; i < 5; i++) u.server.setText(`shared://x/r/${i}`, `${name} r${i}`);
    }
    const config = await writeConfig(shared, {
      mcpServers: {
        first: { url: first.url, prefix: false },
        second: { url: second.url, prefix: false },
        web: { url: web.url },
      },
    });
    const { client, logs } = await connectStdio(shared, config);
    return { first, second, client, logs };
  }

  // One gateway for the three tests: only the first reads resources (it counts the upstreams' reads) or
  // subscribes; the other two complete and list templates, which neither changes.
  let setup: Awaited<ReturnType<typeof unprefixedSetup>>;
  beforeAll(async () => {
    setup = await unprefixedSetup();
  });

  const read = async (client: Client, uri: string) =>
    (await client.request({ method: 'resources/read', params: { uri } })).contents as Record<
      string,
      unknown
    >[];

  it('lists unprefixed URIs unchanged, colliding ones once, and routes reads exactly then by template', async () => {
    const { client, logs, first, second } = setup;
    const { items } = await listAll(client);
    const uris = items.map((r) => r.uri as string);
    expect(new Set(uris).size).toBe(uris.length);
    expect([...uris].sort()).toEqual([
      'shared://x/r/0',
      'shared://x/r/1',
      'shared://x/r/2',
      'shared://x/r/3',
      'shared://x/r/4',
      'web+test://web/r/0',
      'web+test://web/r/1',
    ]);

    // A colliding URI is served by the first server in config order; a unique one by its owner.
    expect(await read(client, 'shared://x/r/1')).toEqual([
      { uri: 'shared://x/r/1', mimeType: 'text/plain', text: 'first r1' },
    ]);
    expect(await read(client, 'shared://x/r/4')).toEqual([
      { uri: 'shared://x/r/4', mimeType: 'text/plain', text: 'second r4' },
    ]);
    // Templates: items/{id} exists on both (first wins); t1/{id} only on the second server.
    expect(await read(client, 'shared://x/items/5')).toEqual([
      { uri: 'shared://x/items/5', mimeType: 'text/plain', text: 'item 5' },
    ]);
    expect(await read(client, 'shared://x/t1/6')).toEqual([
      { uri: 'shared://x/t1/6', mimeType: 'text/plain', text: 'item 6' },
    ]);
    const readsBefore = { first: first.server.stats.requests['resources/read'] ?? 0 };
    expect(readsBefore.first).toBe(2); // r/1 and items/5
    expect(second.server.stats.requests['resources/read']).toBe(2); // r/4 and t1/6

    // Prefixed and unknown URIs still behave.
    expect(await read(client, 'web+test://web/r/1')).toEqual([
      { uri: 'web+test://web/r/1', mimeType: 'text/plain', text: 'resource 1' },
    ]);
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'other://nowhere' } }),
    ).rejects.toMatchObject({ code: -32602 }); // v2 client: not found, normalized from -32002

    // Subscriptions and updates keep the unprefixed URI.
    const updated = nextNotification(client, 'notifications/resources/updated');
    await client.subscribeResource({ uri: 'shared://x/r/4' });
    expect(second.server.stats.subscribed['shared://x/r/4']).toBe(1);
    await second.server.triggerUpdated('shared://x/r/4');
    expect(await updated).toEqual({ uri: 'shared://x/r/4' });

    // The collision is reported in the gateway log.
    await logs.waitFor(/URI collision between unprefixed servers/);
    expect(logs.text).toMatch(/collision.*uri="shared:\/\/x\/r\/0".*winner="first".*hidden="second"/);
  });

  it('routes completion for an unprefixed template', async () => {
    const { client } = setup;
    const result = await client.request({
      method: 'completion/complete',
      params: {
        ref: { type: 'ref/resource', uri: 'shared://x/t1/{id}' },
        argument: { name: 'id', value: 'al' },
      },
    });
    expect(result.completion.values).toEqual(['alpha']);
  });

  // Colliding unprefixed templates are listed once (served by the first in config order) and logged.
  it('lists a resource template that two unprefixed servers share only once', async () => {
    const { client } = setup;
    const { items } = await listAll(client, 'resources/templates/list');
    expect(items.map((t) => t.uriTemplate).sort()).toEqual([
      'shared://x/items/{id}',
      'shared://x/t1/{id}',
      'web+test://web/items/{id}',
    ]);
  });
});
