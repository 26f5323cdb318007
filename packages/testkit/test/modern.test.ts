import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { controlClient, TestServer } from '../src/index.js';
import { Cleanup, deferred, httpClient, until, within } from './helpers.js';

const MODERN = '2026-07-28';
const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function start(options: ConstructorParameters<typeof TestServer>[0] = {}) {
  const server = new TestServer({ modern: true, ...options });
  cleanup.add(() => server.close());
  const http = await server.listenHttp();
  return { server, http };
}

async function modernHttpClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await within(client.connect(transport), 5000, 'modern connect');
  cleanup.add(() => client.close());
  return client;
}

/** Walks every page with explicit cursors. */
async function pages(client: Client, method: 'resources/list' | 'resources/templates/list') {
  const items: string[] = [];
  let count = 0;
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    if (method === 'resources/list') {
      const page = await client.request({ method, params });
      items.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } else {
      const page = await client.request({ method, params });
      items.push(...page.resourceTemplates.map((t) => t.uriTemplate));
      cursor = page.nextCursor;
    }
    count++;
  } while (cursor !== undefined);
  return { items, pages: count };
}

/** The ttlMs/cacheScope fields as they reached the client (absent fields stay absent). */
function cacheFields(result: object): Record<string, unknown> {
  const r = result as { ttlMs?: unknown; cacheScope?: unknown };
  return { ttlMs: r.ttlMs, cacheScope: r.cacheScope };
}

describe('TestServer modern era (2026-07-28) over HTTP', () => {
  it('negotiates modern, pages, reads with cache hints, completes, and counts stats', async () => {
    const { server, http } = await start({
      name: 'docs',
      resources: 12,
      pageSize: 5,
      templates: 3,
      cacheTtlMs: 30_000,
      cacheScope: 'public',
    });
    const client = await modernHttpClient(http.url);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion?.()).toBe(MODERN);
    expect(client.getServerVersion()?.name).toBe('docs');

    const resources = await pages(client, 'resources/list');
    expect(resources.pages).toBe(3);
    expect(resources.items).toEqual(Array.from({ length: 12 }, (_, i) => `test://docs/r/${i}`));
    const templates = await pages(client, 'resources/templates/list');
    expect(templates.pages).toBe(1);
    expect(templates.items).toEqual(['test://docs/items/{id}', 'test://docs/t1/{id}', 'test://docs/t2/{id}']);

    const list = await client.request({ method: 'resources/list', params: {} });
    expect(cacheFields(list)).toEqual({ ttlMs: 30_000, cacheScope: 'public' });
    const read = await client.request({ method: 'resources/read', params: { uri: 'test://docs/r/3' } });
    expect(read.contents[0]).toMatchObject({ uri: 'test://docs/r/3' });
    expect(cacheFields(read)).toEqual({ ttlMs: 30_000, cacheScope: 'public' });
    const item = await client.request({ method: 'resources/read', params: { uri: 'test://docs/items/42' } });
    expect(item.contents[0]).toMatchObject({ text: 'item 42' });

    const completion = await client.request({
      method: 'completion/complete',
      params: {
        ref: { type: 'ref/resource', uri: 'test://docs/items/{id}' },
        argument: { name: 'id', value: 'b' },
      },
    });
    expect(completion.completion.values).toEqual(['beta']);

    expect(server.stats.requests).toMatchObject({
      'resources/list': 4,
      'resources/templates/list': 1,
      'resources/read': 2,
      'completion/complete': 1,
    });
    // Modern requests are stateless: no session is held open.
    expect(server.stats.sessions).toBe(0);
  });

  it('omits the configured hints when unset (SDK defaults)', async () => {
    const { http } = await start({ resources: 2 });
    const client = await modernHttpClient(http.url);
    const read = await client.request({ method: 'resources/read', params: { uri: 'test://testkit/r/0' } });
    expect(cacheFields(read)).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });

  it('applies injected error and hang failures to modern requests', async () => {
    const { server, http } = await start({ resources: 3 });
    const client = await modernHttpClient(http.url);
    server.failNext({ method: 'resources/read', mode: 'error', code: -32011, message: 'nope' });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'test://testkit/r/1' } }),
    ).rejects.toMatchObject({ code: -32011 });
    server.failNext({ method: 'resources/list', mode: 'hang' });
    const aborter = new AbortController();
    const hung = client.request({ method: 'resources/list', params: {} }, { signal: aborter.signal });
    await until(() => server.stats.requests['resources/list'] === 1, 5000, 'hung list received');
    aborter.abort();
    await expect(hung).rejects.toThrow();
    // Still serving after the failures.
    const read = await client.request({ method: 'resources/read', params: { uri: 'test://testkit/r/1' } });
    expect(read.contents).toHaveLength(1);
  });

  it("a 'crash' failure drops modern requests; the listener keeps serving", async () => {
    const { server, http } = await start({ resources: 3 });
    const client = await modernHttpClient(http.url);
    server.failNext({ method: 'resources/read', mode: 'crash' });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'test://testkit/r/0' } }, { timeout: 3000 }),
    ).rejects.toThrow();
    const again = await modernHttpClient(http.url);
    const list = await again.request({ method: 'resources/list', params: {} });
    expect(list.resources).toHaveLength(3);
  });

  it('delivers updated and list_changed on subscriptions/listen; counts open listens', async () => {
    const { server, http } = await start({ resources: 5 });
    const client = await modernHttpClient(http.url);
    const uri = 'test://testkit/r/2';
    const updated = deferred<string>();
    const listChanged = deferred<void>();
    client.setNotificationHandler('notifications/resources/updated', (n) => updated.resolve(n.params.uri));
    client.setNotificationHandler('notifications/resources/list_changed', () => listChanged.resolve());
    const subscription = await within(
      client.listen({ resourceSubscriptions: [uri], resourcesListChanged: true }),
      5000,
      'listen ack',
    );
    expect(subscription.honoredFilter).toMatchObject({
      resourceSubscriptions: [uri],
      resourcesListChanged: true,
    });
    expect(server.stats.listens).toBe(1);
    expect(server.stats.requests['subscriptions/listen']).toBe(1);

    await server.triggerUpdated('test://testkit/r/3'); // not in the filter
    await server.triggerUpdated(uri);
    expect(await within(updated.promise, 3000, 'updated on listen')).toBe(uri);
    await controlClient(http.controlUrl).listChanged();
    await within(listChanged.promise, 3000, 'list_changed on listen');
    expect((await controlClient(http.controlUrl).stats()).listens).toBe(1);

    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await until(() => server.stats.listens === 0, 5000, 'listen stream closed');
  });

  it('serves a legacy client side by side on the same URL and state', async () => {
    const { server, http } = await start({ resources: 4 });
    const modern = await modernHttpClient(http.url);
    const legacy = await httpClient(http.url, cleanup, 'legacy-client');
    expect(modern.getProtocolEra()).toBe('modern');
    expect(legacy.getProtocolEra()).toBe('legacy');
    expect(server.stats.sessions).toBe(1);

    const uri = 'test://testkit/r/1';
    const legacyUpdated = deferred<string>();
    const modernUpdated = deferred<string>();
    legacy.setNotificationHandler('notifications/resources/updated', (n) =>
      legacyUpdated.resolve(n.params.uri),
    );
    modern.setNotificationHandler('notifications/resources/updated', (n) =>
      modernUpdated.resolve(n.params.uri),
    );
    await legacy.subscribeResource({ uri });
    const subscription = await modern.listen({ resourceSubscriptions: [uri] });
    cleanup.add(() => subscription.close());

    server.setText(uri, 'changed');
    await server.triggerUpdated(uri);
    expect(await within(legacyUpdated.promise, 3000, 'legacy updated')).toBe(uri);
    expect(await within(modernUpdated.promise, 3000, 'modern updated')).toBe(uri);

    const [a, b] = await Promise.all([
      modern.request({ method: 'resources/read', params: { uri } }),
      legacy.request({ method: 'resources/read', params: { uri } }),
    ]);
    expect(a.contents[0]).toMatchObject({ text: 'changed' });
    expect(b.contents[0]).toMatchObject({ text: 'changed' });
    expect(cacheFields(b)).toEqual({ ttlMs: undefined, cacheScope: undefined });
    expect(server.stats.requests['resources/read']).toBe(2);
  });
});

describe('modern era is opt-in', () => {
  it('without modern: true, a negotiating client falls back to the 2025 era', async () => {
    const server = new TestServer({ resources: 2 });
    cleanup.add(() => server.close());
    const http = await server.listenHttp();
    const client = await modernHttpClient(http.url);
    expect(client.getProtocolEra()).toBe('legacy');
    const list = await client.request({ method: 'resources/list', params: {} });
    expect(list.resources).toHaveLength(2);
    expect(server.stats.sessions).toBe(1);
  });
});

describe('cache options', () => {
  it('validates cacheTtlMs and cacheScope', () => {
    expect(() => new TestServer({ cacheTtlMs: -1 })).toThrow(RangeError);
    expect(() => new TestServer({ cacheScope: 'shared' as never })).toThrow(RangeError);
    const server = new TestServer({ cacheTtlMs: 5, cacheScope: 'public' });
    expect(server.options).toMatchObject({ cacheTtlMs: 5, cacheScope: 'public' });
    expect('cacheTtlMs' in new TestServer().options).toBe(false);
  });
});

class InPlace extends StdioClientTransport {}

describe('TestServer modern era over stdio (CLI)', () => {
  it('negotiates modern on stdio: pages, reads with hints, listen + control-triggered updates, failures', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first`);
    const dir = await mkdtemp(join(tmpdir(), 'testkit-modern-'));
    cleanup.add(() => rm(dir, { recursive: true, force: true }));
    const controlFile = join(dir, 'control.url');
    const transport = new InPlace({
      command: process.execPath,
      args: [
        CLI,
        '--modern',
        '--name',
        'pipe',
        '--resources',
        '5',
        '--page-size',
        '2',
        '--cache-ttl-ms',
        '1000',
        '--cache-scope',
        'private',
        '--control-file',
        controlFile,
      ],
      stderr: 'pipe',
    });
    const client = new Client(
      { name: 'stdio-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await within(client.connect(transport), 10_000, 'stdio modern connect');
    cleanup.add(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');

    const all = await pages(client, 'resources/list');
    expect(all).toEqual({ pages: 3, items: Array.from({ length: 5 }, (_, i) => `test://pipe/r/${i}`) });
    const read = await client.request({ method: 'resources/read', params: { uri: 'test://pipe/r/4' } });
    expect(cacheFields(read)).toEqual({ ttlMs: 1000, cacheScope: 'private' });
    const completion = await client.request({
      method: 'completion/complete',
      params: {
        ref: { type: 'ref/resource', uri: 'test://pipe/items/{id}' },
        argument: { name: 'id', value: 'g' },
      },
    });
    expect(completion.completion.values).toEqual(['gamma']);

    await until(() => existsSync(controlFile), 5000, 'control file');
    const control = controlClient((await readFile(controlFile, 'utf8')).trim());
    const updated = deferred<string>();
    client.setNotificationHandler('notifications/resources/updated', (n) => updated.resolve(n.params.uri));
    const subscription = await within(
      client.listen({ resourceSubscriptions: ['test://pipe/r/1'] }),
      5000,
      'stdio listen ack',
    );
    expect(await control.stats()).toMatchObject({ listens: 1, requests: { 'subscriptions/listen': 1 } });
    await control.updated('test://pipe/r/1');
    expect(await within(updated.promise, 3000, 'updated over stdio listen')).toBe('test://pipe/r/1');
    await subscription.close();
    expect(await subscription.closed).toBe('local');
    let listens = -1;
    const poll = setInterval(
      () =>
        void control
          .stats()
          .then((s) => (listens = s.listens))
          .catch(() => undefined),
      10,
    );
    try {
      await until(() => listens === 0, 5000, 'stdio listen closed');
    } finally {
      clearInterval(poll);
    }

    await control.fail({ method: 'resources/read', mode: 'error', code: -32012 });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'test://pipe/r/0' } }),
    ).rejects.toMatchObject({ code: -32012 });
    expect(await control.stats()).toMatchObject({
      sessions: 1,
      requests: { 'resources/list': 3, 'resources/read': 2, 'completion/complete': 1 },
    });
  });
});
