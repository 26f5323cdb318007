import { type Client, ProtocolError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer } from '../src/index.js';
import { Cleanup, deferred, httpClient, until, within } from './helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function start(options: ConstructorParameters<typeof TestServer>[0] = {}) {
  const server = new TestServer(options);
  cleanup.add(() => server.close());
  const http = await server.listenHttp();
  return { server, http };
}

/** Walks every resources/list page by hand (the v2 client only aggregates when no cursor is given). */
async function allPages(client: Client, method: 'resources/list' | 'resources/templates/list') {
  const items: string[] = [];
  let pages = 0;
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
    pages++;
  } while (cursor !== undefined);
  return { items, pages };
}

describe('TestServer over Streamable HTTP', () => {
  it('advertises its capabilities and serverInfo', async () => {
    const { http } = await start({ name: 'docs' });
    const client = await httpClient(http.url, cleanup);
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(http.controlUrl).toBe(`http://127.0.0.1:${http.port}/control`);
    expect(client.getServerVersion()?.name).toBe('docs');
    expect(client.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      logging: {},
      completions: {},
    });
  });

  it('omits subscribe and completions when disabled', async () => {
    const { http } = await start({ subscribe: false, completions: [] });
    const client = await httpClient(http.url, cleanup);
    const caps = client.getServerCapabilities();
    expect(caps?.resources).toEqual({ listChanged: true });
    expect(caps?.completions).toBeUndefined();
    await expect(
      client.request({ method: 'resources/subscribe', params: { uri: 'test://testkit/r/0' } }),
    ).rejects.toMatchObject({
      code: -32601,
    });
  });

  it('pages resources and templates: every item exactly once, opaque cursors', async () => {
    const { server, http } = await start({ resources: 23, pageSize: 5, templates: 7 });
    const client = await httpClient(http.url, cleanup);
    const resources = await allPages(client, 'resources/list');
    expect(resources.pages).toBe(5);
    expect(resources.items).toEqual(Array.from({ length: 23 }, (_, i) => `test://testkit/r/${i}`));
    const templates = await allPages(client, 'resources/templates/list');
    expect(templates.pages).toBe(2);
    expect(templates.items).toEqual([
      'test://testkit/items/{id}',
      ...Array.from({ length: 6 }, (_, j) => `test://testkit/t${j + 1}/{id}`),
    ]);
    // The v2 client's aggregate walk agrees.
    const walked = await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(walked.resources).toHaveLength(23);
    expect(server.stats.requests['resources/list']).toBe(5 + 5);
  });

  it('answers a malformed cursor with -32602', async () => {
    const { http } = await start({ pageSize: 3 });
    const client = await httpClient(http.url, cleanup);
    const error = await client.listResources({ cursor: 'not-a-cursor' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32602 });
    await expect(client.listResourceTemplates({ cursor: '%%%' })).rejects.toMatchObject({ code: -32602 });
  });

  it('reads text, blob, template and overridden resources; unknown uri fails', async () => {
    const { server, http } = await start({ resources: 4, blobEvery: 2, payloadBytes: 32 });
    const client = await httpClient(http.url, cleanup);
    const text = await client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass' });
    expect(text.contents).toEqual([
      { uri: 'test://testkit/r/0', mimeType: 'text/plain', text: 'resource 0'.padEnd(32, '.') },
    ]);
    const blob = await client.readResource({ uri: 'test://testkit/r/1' }, { cacheMode: 'bypass' });
    const content = blob.contents[0] as { blob: string; mimeType: string };
    expect(content.mimeType).toBe('application/octet-stream');
    expect(Buffer.from(content.blob, 'base64').toString('utf8')).toBe('resource 1'.padEnd(32, '.'));
    const item = await client.readResource({ uri: 'test://testkit/items/abc' }, { cacheMode: 'bypass' });
    expect(item.contents).toEqual([
      { uri: 'test://testkit/items/abc', mimeType: 'text/plain', text: 'item abc' },
    ]);
    server.setText('test://testkit/r/2', 'changed');
    const changed = await client.readResource({ uri: 'test://testkit/r/2' }, { cacheMode: 'bypass' });
    expect(changed.contents[0]).toMatchObject({ text: 'changed' });
    await expect(
      client.readResource({ uri: 'test://testkit/r/4' }, { cacheMode: 'bypass' }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    server.setResourceCount(5);
    const grown = await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(grown.resources.map((r) => r.name)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('completes template arguments by prefix', async () => {
    const { http } = await start({ completions: ['alpha', 'alps', 'beta'] });
    const client = await httpClient(http.url, cleanup);
    const ref = { type: 'ref/resource' as const, uri: 'test://testkit/items/{id}' };
    const al = await client.complete({ ref, argument: { name: 'id', value: 'al' } });
    expect(al.completion).toEqual({ values: ['alpha', 'alps'], total: 2, hasMore: false });
    const none = await client.complete({
      ref: { type: 'ref/resource', uri: 'test://nope/{id}' },
      argument: { name: 'id', value: '' },
    });
    expect(none.completion.values).toEqual([]);
  });

  it('counts subscriptions and notifies only the subscribed session', async () => {
    const { server, http } = await start();
    const a = await httpClient(http.url, cleanup, 'a');
    const b = await httpClient(http.url, cleanup, 'b');
    await until(() => server.stats.sessions === 2, 2000, 'two sessions');
    const uri = 'test://testkit/r/3';
    const gotA = deferred<string>();
    const seenByB: string[] = [];
    a.setNotificationHandler('notifications/resources/updated', (n) => gotA.resolve(n.params.uri));
    b.setNotificationHandler('notifications/resources/updated', (n) => {
      seenByB.push(n.params.uri);
    });
    await a.subscribeResource({ uri });
    await b.subscribeResource({ uri: 'test://testkit/r/4' });
    expect(server.stats.subscribed).toEqual({ [uri]: 1, 'test://testkit/r/4': 1 });
    await server.triggerUpdated(uri);
    expect(await within(gotA.promise, 3000, 'updated on a')).toBe(uri);
    // b is subscribed to r/4 only; an r/4 update proves b's stream works and r/3 never reached it.
    const gotB = deferred<void>();
    b.setNotificationHandler('notifications/resources/updated', (n) => {
      seenByB.push(n.params.uri);
      gotB.resolve();
    });
    await server.triggerUpdated('test://testkit/r/4');
    await within(gotB.promise, 3000, 'updated on b');
    expect(seenByB).toEqual(['test://testkit/r/4']);
    await a.unsubscribeResource({ uri });
    expect(server.stats).toMatchObject({ subscribeCalls: 2, unsubscribeCalls: 1, subscribed: { [uri]: 0 } });
  });

  it('broadcasts list_changed to every session and tracks session count', async () => {
    const { server, http } = await start();
    const clients = [await httpClient(http.url, cleanup), await httpClient(http.url, cleanup)];
    const received = clients.map((c) => {
      const d = deferred<void>();
      c.setNotificationHandler('notifications/resources/list_changed', () => d.resolve());
      return d.promise;
    });
    expect(server.stats.sessions).toBe(2);
    await server.triggerListChanged();
    await within(Promise.all(received), 3000, 'list_changed');
    await cleanup.run();
    await until(() => server.stats.sessions === 0, 2000, 'sessions closed');
  });

  it('adds cancellable latency', async () => {
    const { server, http } = await start({ latencyMs: 150 });
    const client = await httpClient(http.url, cleanup);
    const t0 = performance.now();
    await client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    server.setLatency(0);
    const t1 = performance.now();
    await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(performance.now() - t1).toBeLessThan(140);
    server.setLatency(10_000);
    const abort = new AbortController();
    const pending = client.readResource(
      { uri: 'test://testkit/r/1' },
      { cacheMode: 'bypass', signal: abort.signal },
    );
    await until(() => server.stats.requests['resources/read'] === 2, 2000, 'read arrived');
    abort.abort();
    await expect(pending).rejects.toThrow();
    await until(() => server.stats.cancelled === 1, 2000, 'cancel counted');
  });

  it("injects 'error' failures with default and custom codes, filtered by uri and times", async () => {
    const { server, http } = await start();
    const client = await httpClient(http.url, cleanup);
    server.failNext({ method: 'resources/read', mode: 'error' });
    await expect(
      client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass' }),
    ).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('Injected failure'),
    });
    server.failNext({
      method: 'resources/read',
      mode: 'error',
      code: -32050,
      message: 'boom',
      uri: 'test://testkit/r/5',
      times: 2,
    });
    await expect(
      client.readResource({ uri: 'test://testkit/r/4' }, { cacheMode: 'bypass' }),
    ).resolves.toBeDefined();
    for (let i = 0; i < 2; i++) {
      await expect(
        client.readResource({ uri: 'test://testkit/r/5' }, { cacheMode: 'bypass' }),
      ).rejects.toMatchObject({
        code: -32050,
      });
    }
    await expect(
      client.readResource({ uri: 'test://testkit/r/5' }, { cacheMode: 'bypass' }),
    ).resolves.toBeDefined();
    server.failNext({ method: 'ping', mode: 'error', times: Number.POSITIVE_INFINITY });
    await expect(client.ping()).rejects.toMatchObject({ code: -32603 });
    await expect(client.ping()).rejects.toMatchObject({ code: -32603 });
    server.clearFailures();
    await expect(client.ping()).resolves.toEqual({});
    expect(server.stats.requests.ping).toBe(3);
    expect(server.stats.requests.initialize).toBe(1);
  });

  it("'hang' never answers but honours cancellation", async () => {
    const { server, http } = await start();
    const client = await httpClient(http.url, cleanup);
    server.failNext({ method: 'resources/list', mode: 'hang' });
    const abort = new AbortController();
    const pending = client.listResources(undefined, { signal: abort.signal });
    await until(() => server.stats.requests['resources/list'] === 1, 2000, 'list arrived');
    abort.abort(new Error('test cancels'));
    await expect(pending).rejects.toThrow();
    await until(() => server.stats.cancelled === 1, 2000, 'cancel counted');
    // The session still works.
    await expect(client.listResources(undefined, { cacheMode: 'bypass' })).resolves.toMatchObject({
      resources: expect.any(Array),
    });
  });

  it("'crash' closes every transport in-process", async () => {
    const { server, http } = await start();
    const client = await httpClient(http.url, cleanup);
    await httpClient(http.url, cleanup);
    expect(server.stats.sessions).toBe(2);
    server.failNext({ method: 'resources/read', mode: 'crash' });
    const read = client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass', timeout: 3000 });
    await expect(read).rejects.toThrow();
    await until(() => server.stats.sessions === 0, 2000, 'sessions closed');
    // Like a restarted process: the listener still accepts new sessions.
    const again = await httpClient(http.url, cleanup);
    await expect(again.ping()).resolves.toEqual({});
    expect(server.stats.sessions).toBe(1);
  });

  it('sends progress and a log message before answering a read with a progress token', async () => {
    const { http } = await start({ name: 'prog', progress: 3 });
    const client = await httpClient(http.url, cleanup);
    const messages: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      messages.push(n.params);
    });
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await client.readResource(
      { uri: 'test://prog/r/1' },
      { cacheMode: 'bypass', onprogress: (p) => progress.push({ progress: p.progress, total: p.total }) },
    );
    expect(result.contents[0]).toMatchObject({ uri: 'test://prog/r/1' });
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    expect(messages).toEqual([{ level: 'info', logger: 'prog', data: 'read test://prog/r/1' }]);
  });

  it('refuses non-loopback Host headers and unknown sessions', async () => {
    const { http } = await start();
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>, method = 'POST', path = '/mcp') =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: http.port, path, method, headers, agent: false },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      });
    expect(await status({ host: 'evil.example:80', 'content-type': 'application/json' })).toBe(403);
    expect(
      await status({ host: 'evil.example', 'content-type': 'application/json' }, 'GET', '/control/stats'),
    ).toBe(403);
    expect(await status({ 'content-type': 'application/json', 'mcp-session-id': 'nope' })).toBe(404);
    expect(await status({ 'content-type': 'application/json' })).toBe(400);
  });
});
