import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { controlClient, TestServer } from '../src/index.js';
import { Cleanup, deferred, httpClient, until, within } from './helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('control API over HTTP', () => {
  it('drives a server it did not create', async () => {
    const server = new TestServer({ resources: 2 });
    cleanup.add(() => server.close());
    const http = await server.listenHttp();
    const control = controlClient(http.controlUrl);
    const client = await httpClient(http.url, cleanup);

    await control.resources(4);
    await control.text('test://testkit/r/3', 'via control');
    const list = await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(list.resources).toHaveLength(4);
    const read = await client.readResource({ uri: 'test://testkit/r/3' }, { cacheMode: 'bypass' });
    expect(read.contents[0]).toMatchObject({ text: 'via control' });

    const updated = deferred<string>();
    const listChanged = deferred<void>();
    client.setNotificationHandler('notifications/resources/updated', (n) => updated.resolve(n.params.uri));
    client.setNotificationHandler('notifications/resources/list_changed', () => listChanged.resolve());
    await client.subscribeResource({ uri: 'test://testkit/r/3' });
    await control.updated('test://testkit/r/3');
    expect(await within(updated.promise, 3000, 'updated')).toBe('test://testkit/r/3');
    await control.listChanged();
    await within(listChanged.promise, 3000, 'list_changed');

    await control.fail({
      method: 'resources/read',
      mode: 'error',
      code: -32099,
      times: Number.POSITIVE_INFINITY,
    });
    await expect(
      client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass' }),
    ).rejects.toMatchObject({
      code: -32099,
    });
    await control.clearFailures();
    await expect(
      client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass' }),
    ).resolves.toBeDefined();

    await control.latency(120);
    const t0 = performance.now();
    await client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(110);
    expect(server.options.latencyMs).toBe(120);

    const stats = await control.stats();
    expect(stats).toMatchObject({
      sessions: 1,
      subscribeCalls: 1,
      unsubscribeCalls: 0,
      subscribed: { 'test://testkit/r/3': 1 },
      requests: { initialize: 1, 'resources/list': 1, 'resources/read': 4, 'resources/subscribe': 1 },
    });
  });

  it('rejects invalid control requests with 4xx', async () => {
    const server = new TestServer();
    cleanup.add(() => server.close());
    const http = await server.listenHttp();
    const control = controlClient(http.controlUrl);
    await expect(control.fail({ method: 'x', mode: 'explode' as never })).rejects.toThrow(/400/);
    await expect(control.latency(-5)).rejects.toThrow(/400/);
    await expect(control.text('u', 7 as never)).rejects.toThrow(/400/);
    await expect(control.tools(-1)).rejects.toThrow(/400/);
    await expect(control.prompts(1.5)).rejects.toThrow(/400/);
    await expect(control.fail({ method: 'tools/call', mode: 'error', name: 3 as never })).rejects.toThrow(
      /400/,
    );
    const unknown = await fetch(`${http.controlUrl}/nope`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    const badJson = await fetch(`${http.controlUrl}/latency`, { method: 'POST', body: '{' });
    expect(badJson.status).toBe(400);
    const wrongMethod = await fetch(`${http.controlUrl}/stats`, { method: 'POST', body: '{}' });
    expect(wrongMethod.status).toBe(405);
  });
});

describe('createServer with any transport', () => {
  it('serves an in-memory client and shares state with the TestServer', async () => {
    const server = new TestServer({ name: 'mem', resources: 3 });
    cleanup.add(() => server.close());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.createServer().connect(serverSide);
    const client = new Client({ name: 'mem-client', version: '1.0.0' });
    await client.connect(clientSide);
    cleanup.add(() => client.close());
    expect(server.stats.sessions).toBe(1);
    const list = await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(list.resources.map((r) => r.uri)).toEqual(['test://mem/r/0', 'test://mem/r/1', 'test://mem/r/2']);
    const updated = deferred<string>();
    client.setNotificationHandler('notifications/resources/updated', (n) => updated.resolve(n.params.uri));
    await client.subscribeResource({ uri: 'test://mem/r/1' });
    await server.triggerUpdated('test://mem/r/1');
    expect(await within(updated.promise, 2000, 'updated')).toBe('test://mem/r/1');
    await client.close();
    await until(() => server.stats.sessions === 0, 2000, 'session closed');
  });
});
