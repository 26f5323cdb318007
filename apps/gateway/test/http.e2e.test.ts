import { join } from 'node:path';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { controlClient, type TestServerOptions } from '@switchyard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  collectNotifications,
  connectHttp,
  eventually,
  expectSwitchyardHandshake,
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

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const upstream = (options: TestServerOptions) => httpUpstream(cleanup, options);

const httpListen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

/**
 * alpha and beta over HTTP (different page counts), gamma a stdio testkit child with a control file.
 * beta's `timeoutMs` stays at the default unless a test times it out on purpose: a short one would fail
 * its pages on a loaded machine.
 */
async function threeUpstreams(extra: Record<string, unknown> = {}, betaTimeoutMs?: number, owner = cleanup) {
  const alpha = await httpUpstream(owner, { name: 'alpha', resources: 25, pageSize: 10, blobEvery: 5 });
  const beta = await httpUpstream(owner, { name: 'beta', resources: 7, pageSize: 3, progress: 3 });
  const dir = await tempDir(owner);
  const controlFile = join(dir, 'gamma.control');
  const gw = await startGateway(owner, {
    listen: httpListen,
    mcpServers: {
      alpha: { url: alpha.url },
      beta: { url: beta.url, ...(betaTimeoutMs ? { timeoutMs: betaTimeoutMs } : {}) },
      gamma: {
        command: process.execPath,
        args: [TESTKIT_CLI, '--name', 'gamma', '--resources', '4', '--control-file', controlFile],
      },
      ...extra,
    },
  });
  return { alpha, beta, gw, gamma: () => readControlUrl(controlFile).then(controlClient) };
}

/**
 * One threeUpstreams() gateway for the tests that change nothing on it (each opens its own sessions and
 * closes them): a process start less for each of them.
 */
const shared = new Cleanup();
afterAll(() => shared.run());
let sharedThree: ReturnType<typeof threeUpstreams> | undefined;
const unchangedThree = () => {
  sharedThree ??= threeUpstreams({}, undefined, shared);
  return sharedThree;
};
/**
 * A second shared threeUpstreams() gateway for the tests that make one upstream misbehave once
 * (`failNext`, consumed by the test's own next request to it) or announce a list change, and check
 * nothing that another of them changes: each looks at a statistic no other test on it touches (its own
 * URI's subscription count, the one cancellation, beta's completions). Tests that crash or restart an
 * upstream, or count subscribe calls, still start their own.
 */
let sharedFaulted: ReturnType<typeof threeUpstreams> | undefined;
const oneShotFaultThree = () => {
  sharedFaulted ??= threeUpstreams({}, undefined, shared);
  return sharedFaulted;
};

describe('gateway over Streamable HTTP (legacy era)', () => {
  it('initializes with switchyard serverInfo, resource capabilities and completions, and answers ping', async () => {
    const { gw } = await unchangedThree();
    const client = await connectHttp(cleanup, gw.url);
    await expectSwitchyardHandshake(client);
  });

  it('merges listings: pages = the longest upstream, every resource exactly once, URIs namespaced', async () => {
    const { gw } = await unchangedThree();
    const client = await connectHttp(cleanup, gw.url);
    const { items, pages } = await listAll(client);
    expect(pages).toBe(3); // alpha: 3 pages of 10, beta: 3 pages of 3, gamma: 1 page
    const uris = items.map((r) => r.uri as string);
    expect(uris).toHaveLength(25 + 7 + 4);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toContain('alpha+test://alpha/r/24');
    expect(uris).toContain('beta+test://beta/r/6');
    expect(uris).toContain('gamma+test://gamma/r/3');
    const templates = await listAll(client, 'resources/templates/list');
    expect(templates.items.map((t) => t.uriTemplate).sort()).toEqual([
      'alpha+test://alpha/items/{id}',
      'beta+test://beta/items/{id}',
      'gamma+test://gamma/items/{id}',
    ]);
  });

  it('reads text, blob and templated resources through the gateway, rewriting only the URI', async () => {
    const { gw, alpha } = await unchangedThree();
    const client = await connectHttp(cleanup, gw.url);
    const direct = await connectHttp(cleanup, alpha.url);
    for (const uri of ['test://alpha/r/3', 'test://alpha/r/4', 'test://alpha/items/42']) {
      const viaGateway = await client.request({ method: 'resources/read', params: { uri: `alpha+${uri}` } });
      const fromUpstream = await direct.request({ method: 'resources/read', params: { uri } });
      expect(viaGateway.contents).toEqual(
        fromUpstream.contents.map((c: Record<string, unknown>) => ({ ...c, uri: `alpha+${c.uri}` })),
      );
    }
    const blob = await client.request({
      method: 'resources/read',
      params: { uri: 'alpha+test://alpha/r/4' },
    });
    expect(blob.contents[0]).toHaveProperty('blob');
    const stdio = await client.request({
      method: 'resources/read',
      params: { uri: 'gamma+test://gamma/r/1' },
    });
    expect(stdio.contents[0]?.uri).toBe('gamma+test://gamma/r/1');
  });

  it('routes completion/complete for a resource template to its owner', async () => {
    const { gw } = await unchangedThree();
    const client = await connectHttp(cleanup, gw.url);
    const result = await client.request({
      method: 'completion/complete',
      params: {
        ref: { type: 'ref/resource', uri: 'beta+test://beta/items/{id}' },
        argument: { name: 'id', value: 'g' },
      },
    });
    expect(result.completion.values).toEqual(['gamma']);
    await expect(
      client.request({
        method: 'completion/complete',
        params: {
          ref: { type: 'ref/resource', uri: 'nobody+x://{id}' },
          argument: { name: 'id', value: '' },
        },
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('routes prompt-argument completions by prompt name (unprefixed) and by server__prompt (prefixed)', async () => {
    const flat = await upstream({ name: 'flat', resources: 0, templates: 0, fixture: 'conformance' });
    const named = await upstream({ name: 'named', resources: 0, templates: 0, fixture: 'conformance' });
    const gw = await startGateway(cleanup, {
      listen: httpListen,
      mcpServers: { flat: { url: flat.url, prefix: false }, named: { url: named.url } },
    });
    const client = await connectHttp(cleanup, gw.url);
    const complete = (name: string, value: string) =>
      client.request({
        method: 'completion/complete',
        params: { ref: { type: 'ref/prompt', name }, argument: { name: 'arg1', value } },
      });
    expect((await complete('test_prompt_with_arguments', 'b')).completion.values).toEqual(['beta']);
    expect((await complete('named__test_prompt_with_arguments', 'g')).completion.values).toEqual(['gamma']);
    expect(flat.server.stats.requests['completion/complete']).toBe(1);
    expect(named.server.stats.requests['completion/complete']).toBe(1);
    await expect(complete('no_such_prompt', '')).rejects.toMatchObject({ code: -32602 });
    // The fixture's static resources are served unprefixed, as the conformance suite expects.
    const text = await client.request({ method: 'resources/read', params: { uri: 'test://static-text' } });
    expect(text.contents[0]).toMatchObject({ uri: 'test://static-text', mimeType: 'text/plain' });
    const templated = await client.request({
      method: 'resources/read',
      params: { uri: 'test://template/123/data' },
    });
    expect(templated.contents[0]).toMatchObject({ uri: 'test://template/123/data' });
    expect(JSON.stringify(templated.contents[0])).toContain('123');
  });

  it('refcounts upstream subscriptions across sessions and delivers updates only to subscribers', async () => {
    const { gw, alpha } = await threeUpstreams();
    const a = await connectHttp(cleanup, gw.url, 'a');
    const b = await connectHttp(cleanup, gw.url, 'b');
    const c = await connectHttp(cleanup, gw.url, 'c');
    const uri = 'test://alpha/r/1';
    const other = 'test://alpha/r/2';
    await a.subscribeResource({ uri: `alpha+${uri}` });
    await b.subscribeResource({ uri: `alpha+${uri}` });
    await c.subscribeResource({ uri: `alpha+${other}` });
    expect(alpha.server.stats.subscribed[uri]).toBe(1);
    expect(alpha.server.stats.subscribeCalls).toBe(2); // one per distinct URI, not per session

    const seenByC = collectNotifications(c, 'notifications/resources/updated');
    const gotA = nextNotification(a, 'notifications/resources/updated');
    const gotB = nextNotification(b, 'notifications/resources/updated');
    await alpha.server.triggerUpdated(uri);
    expect(await gotA).toMatchObject({ uri: `alpha+${uri}` });
    expect(await gotB).toMatchObject({ uri: `alpha+${uri}` });
    // c is subscribed only to `other`: once its update arrives, the earlier one would have too.
    await alpha.server.triggerUpdated(other);
    await eventually(() => seenByC.length > 0, 'c to receive its own update');
    expect(seenByC.map((n) => n.uri)).toEqual([`alpha+${other}`]);

    await a.unsubscribeResource({ uri: `alpha+${uri}` });
    expect(alpha.server.stats.subscribed[uri]).toBe(1); // b still holds it
    await (b.transport as StreamableHTTPClientTransport).terminateSession(); // DELETE: subscriptions released
    await eventually(
      () => alpha.server.stats.subscribed[uri] === 0,
      'upstream unsubscribe after last session left',
    );
    expect(alpha.server.stats.subscribed[other]).toBe(1);
  });

  it('rolls back a subscription the upstream refuses', async () => {
    const { gw, alpha } = await oneShotFaultThree();
    const client = await connectHttp(cleanup, gw.url);
    alpha.server.failNext({ method: 'resources/subscribe', mode: 'error', code: -32603, message: 'nope' });
    await expect(client.subscribeResource({ uri: 'alpha+test://alpha/r/5' })).rejects.toMatchObject({
      code: -32603,
    });
    expect(alpha.server.stats.subscribed['test://alpha/r/5'] ?? 0).toBe(0);
    await client.subscribeResource({ uri: 'alpha+test://alpha/r/5' }); // retried upstream, not cached as held
    expect(alpha.server.stats.subscribed['test://alpha/r/5']).toBe(1);
  });

  it('re-emits upstream list_changed to every session', async () => {
    const { gw, beta } = await oneShotFaultThree();
    const a = await connectHttp(cleanup, gw.url, 'a');
    const b = await connectHttp(cleanup, gw.url, 'b');
    const gotA = nextNotification(a, 'notifications/resources/list_changed');
    const gotB = nextNotification(b, 'notifications/resources/list_changed');
    await beta.server.triggerListChanged();
    await expect(gotA).resolves.toBeDefined();
    await expect(gotB).resolves.toBeDefined();
  });

  it('routes progress and log messages back to the session whose request caused them', async () => {
    const { gw } = await unchangedThree();
    const reader = await connectHttp(cleanup, gw.url, 'reader');
    const bystander = await connectHttp(cleanup, gw.url, 'bystander');
    const messagesReader = collectNotifications(reader, 'notifications/message');
    const messagesBystander = collectNotifications(bystander, 'notifications/message');
    const progress: number[] = [];
    const result = await reader.request(
      { method: 'resources/read', params: { uri: 'beta+test://beta/r/2' } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.contents[0]?.uri).toBe('beta+test://beta/r/2');
    expect(progress).toEqual([1, 2, 3]);
    await eventually(() => messagesReader.length > 0, 'the log message on the reader session');
    expect(messagesReader[0]).toMatchObject({ level: 'info', data: 'read test://beta/r/2' });
    // The bystander reads too (without progress); by then any misrouted message would have arrived.
    await bystander.request({ method: 'resources/read', params: { uri: 'alpha+test://alpha/r/0' } });
    expect(messagesBystander).toEqual([]);
  });

  it('emits list_changed when an upstream drops and comes back, and re-establishes its subscriptions', async () => {
    const { gw, gamma } = await threeUpstreams();
    const client = await connectHttp(cleanup, gw.url);
    const control = await gamma();
    await client.subscribeResource({ uri: 'gamma+test://gamma/r/0' });
    expect((await control.stats()).subscribed['test://gamma/r/0']).toBe(1);
    const changed = nextNotification(client, 'notifications/resources/list_changed');
    await control.fail({ method: 'resources/read', mode: 'crash' });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'gamma+test://gamma/r/0' } }),
    ).rejects.toMatchObject({ code: expect.any(Number) });
    await changed;
    let connects = 0;
    await gw.waitForLine(
      (line) => (line.includes('[switchyard:upstream:gamma] connected') && ++connects === 2) || undefined,
      { timeoutMs: 15_000, what: "gamma's second connected line" },
    );
    // The restarted child wrote a new control URL; its subscription was re-established by the gateway.
    const restarted = await eventually(async () => {
      const c = await gamma();
      const stats = await c.stats();
      return stats.subscribed['test://gamma/r/0'] === 1 ? c : undefined;
    }, 'the subscription on the restarted upstream');
    const updated = nextNotification(client, 'notifications/resources/updated');
    await restarted.updated('test://gamma/r/0');
    expect(await updated).toMatchObject({ uri: 'gamma+test://gamma/r/0' });
  });

  it('times out a hanging upstream with upstream_timeout and cancels it upstream', async () => {
    const { gw, beta } = await threeUpstreams({}, 1500);
    const client = await connectHttp(cleanup, gw.url);
    beta.server.failNext({ method: 'resources/read', mode: 'hang' });
    const error = await client
      .request({ method: 'resources/read', params: { uri: 'beta+test://beta/r/0' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ code: -32004, data: { reason: 'upstream_timeout', upstream: 'beta' } });
    expect((error as Error).message).toMatch(/timeoutMs/);
    await eventually(() => beta.server.stats.cancelled === 1, 'notifications/cancelled upstream');
    // The other upstreams were not affected.
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'alpha+test://alpha/r/0' } }),
    ).resolves.toBeDefined();
  });

  it('fails a request at once with upstream_unavailable when an HTTP upstream dies mid-request', async () => {
    const { gw, alpha } = await threeUpstreams();
    const client = await connectHttp(cleanup, gw.url);
    alpha.server.failNext({ method: 'resources/read', mode: 'crash' });
    // timeoutMs is 30 s for alpha: only an immediate failure answers -32003 rather than -32004.
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'alpha+test://alpha/r/0' } }),
    ).rejects.toMatchObject({ code: -32003, data: { reason: 'upstream_unavailable' } });
    // The gateway reconnects to the (still listening) upstream and serves it again.
    await eventually(
      () =>
        client
          .request({ method: 'resources/read', params: { uri: 'alpha+test://alpha/r/1' } })
          .then((r) => r.contents[0]?.uri === 'alpha+test://alpha/r/1'),
      'alpha to be served again after reconnecting',
    );
  });

  it('forwards a downstream cancellation upstream', async () => {
    const { gw, alpha } = await oneShotFaultThree();
    const client = await connectHttp(cleanup, gw.url);
    const readsBefore = alpha.server.stats.requests['resources/read'] ?? 0;
    alpha.server.failNext({ method: 'resources/read', mode: 'hang' });
    const controller = new AbortController();
    const pending = client.request(
      { method: 'resources/read', params: { uri: 'alpha+test://alpha/r/0' } },
      { signal: controller.signal },
    );
    await eventually(
      () => (alpha.server.stats.requests['resources/read'] ?? 0) > readsBefore,
      'the read to reach upstream',
    );
    controller.abort('user gave up');
    await expect(pending).rejects.toBeDefined();
    await eventually(() => alpha.server.stats.cancelled === 1, 'notifications/cancelled upstream');
  });

  it('passes an upstream JSON-RPC error through and reports unknown resources as not found', async () => {
    const { gw, alpha } = await oneShotFaultThree();
    const client = await connectHttp(cleanup, gw.url);
    alpha.server.failNext({ method: 'resources/read', mode: 'error', code: -32603, message: 'disk on fire' });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'alpha+test://alpha/r/0' } }),
    ).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('disk on fire') });

    const { sessionId, protocolVersion } = await rawInitialize(gw.url);
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion };
    const read = (uri: string, id: number) =>
      rawPost(
        gw.url,
        JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri } }),
        headers,
      );
    // Legacy era: resource not found is -32002, with the URI in data.
    for (const [i, uri] of [
      'nobody+x://y',
      'alpha+test://alpha/missing',
      'plain-uri-without-prefix',
    ].entries()) {
      const res = await read(uri, 10 + i);
      expect(res.json).toMatchObject({ id: 10 + i, error: { code: -32002, data: { uri } } });
    }
  });

  it('answers malformed input with the right JSON-RPC errors and keeps serving', async () => {
    const { gw, beta } = await oneShotFaultThree();
    const { sessionId, protocolVersion } = await rawInitialize(gw.url);
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion };
    const parse = await rawPost(gw.url, '{"jsonrpc": "2.0", "id": 1, "method": ', headers);
    expect(parse.json).toMatchObject({ error: { code: -32700 } });
    const invalid = await rawPost(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 2, params: {} }), headers);
    expect(invalid.json).toMatchObject({ error: { code: -32600 } });
    const unknown = await rawPost(
      gw.url,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/list' }),
      headers,
    );
    expect(unknown.json).toMatchObject({ id: 3, error: { code: -32601 } });
    const badParams = await rawPost(
      gw.url,
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 42 } }),
      headers,
    );
    expect(badParams.json, JSON.stringify(badParams.json)).toMatchObject({ id: 4, error: { code: -32602 } });
    // Requests the SDK would not recognize as requests (and so never answer) are refused up front.
    for (const [id, params] of [
      [40, { _meta: null }],
      [41, { _meta: { progressToken: {} } }],
      [42, ['positional']],
    ] as const) {
      const res = await rawPost(
        gw.url,
        JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params }),
        headers,
      );
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        id,
        error: { code: -32602, message: expect.stringMatching(/params/) },
      });
    }
    // Requests the SDK answers itself get -32602 for bad params, not its -32603.
    const level = await rawPost(
      gw.url,
      JSON.stringify({ jsonrpc: '2.0', id: 43, method: 'logging/setLevel', params: { level: 'loud' } }),
      headers,
    );
    expect(level.json).toMatchObject({
      id: 43,
      error: { code: -32602, message: expect.stringContaining('params.level') },
    });
    // A completion is checked before it is routed: the upstream never sees a malformed argument.
    for (const [id, extra] of [
      [44, { argument: 'g' }],
      [45, { argument: { name: 'id' } }],
      [46, { argument: { name: 'id', value: 'g' }, context: { arguments: { other: 1 } } }],
    ] as const) {
      const res = await rawPost(
        gw.url,
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'completion/complete',
          params: { ref: { type: 'ref/resource', uri: 'beta+test://beta/items/{id}' }, ...extra },
        }),
        headers,
      );
      expect(res.json, JSON.stringify(res.json)).toMatchObject({ id, error: { code: -32602 } });
    }
    expect(beta.server.stats.requests['completion/complete']).toBeUndefined();
    const badCursor = await rawPost(
      gw.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'resources/list',
        params: { cursor: 'bm90IGEgY3Vyc29y.AAAA' },
      }),
      headers,
    );
    expect(badCursor.json).toMatchObject({
      id: 5,
      error: { code: -32602, data: { reason: 'invalid_cursor' } },
    });
    const ok = await rawPost(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }), headers);
    expect(ok.json).toMatchObject({ id: 6, result: {} });
  });

  it('rejects tampered cursors and continues valid ones on a second gateway with the same config', async () => {
    const alpha = await upstream({ name: 'alpha', resources: 30, pageSize: 10 });
    const config = { listen: httpListen, mcpServers: { alpha: { url: alpha.url } } };
    const gw1 = await startGateway(cleanup, config);
    const gw2 = await startGateway(cleanup, config);
    const c1 = await connectHttp(cleanup, gw1.url);
    const c2 = await connectHttp(cleanup, gw2.url);
    const first = await c1.request({ method: 'resources/list', params: {} });
    const cursor = first.nextCursor as string;
    const second = await c2.request({ method: 'resources/list', params: { cursor } });
    expect(second.resources[0]?.uri).toBe('alpha+test://alpha/r/10');
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    await expect(
      c1.request({ method: 'resources/list', params: { cursor: tampered } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('reports an upstream that fails mid-listing in _meta and keeps the page', async () => {
    const { gw, alpha } = await oneShotFaultThree();
    const client = await connectHttp(cleanup, gw.url);
    const first = await client.request({ method: 'resources/list', params: {} });
    alpha.server.failNext({ method: 'resources/list', mode: 'error', code: -32603 });
    const second = await client.request({ method: 'resources/list', params: { cursor: first.nextCursor } });
    expect(second._meta).toMatchObject({ 'switchyard/unavailable': ['alpha'] });
    expect(second.resources.every((r: { uri: string }) => r.uri.startsWith('beta+'))).toBe(true);
    expect(second.resources.length).toBeGreaterThan(0);
  });

  it('keeps serving when one upstream cannot start, and says so', async () => {
    const alpha = await upstream({ name: 'alpha', resources: 3 });
    const gw = await startGateway(cleanup, {
      listen: httpListen,
      mcpServers: {
        broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
        alpha: { url: alpha.url },
      },
    });
    await gw.waitForLine(/\[switchyard:upstream:broken\] failed to connect/);
    const client = await connectHttp(cleanup, gw.url);
    const { items, metas } = await listAll(client);
    expect(items.map((r) => r.uri)).toEqual([
      'alpha+test://alpha/r/0',
      'alpha+test://alpha/r/1',
      'alpha+test://alpha/r/2',
    ]);
    expect(metas[0]).toMatchObject({ 'switchyard/unavailable': ['broken'] });
    const error = await client.request({ method: 'resources/read', params: { uri: 'broken+test://x' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: -32003,
      data: { reason: 'upstream_unavailable', upstream: 'broken' },
    });
  });

  it('refuses DNS-rebinding Host and foreign Origin headers', async () => {
    const { gw } = await unchangedThree();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const evilOrigin = await rawPost(gw.url, body, { origin: 'http://evil.example' });
    expect(evilOrigin.status).toBe(403);
    const port = new URL(gw.url).port;
    const evilHost = await rawPost(gw.url, body, { host: `evil.example:${port}` }).catch(() => undefined);
    // fetch does not let us override Host; use node:http directly instead.
    expect(evilHost === undefined || evilHost.status === 403 || evilHost.status === 400).toBe(true);
    const status = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(
          gw.url,
          {
            method: 'POST',
            headers: { host: `attacker.example:${port}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      }, reject);
    });
    expect(status).toBe(403);
    const localOrigin = await rawPost(gw.url, body, { origin: `http://localhost:${port}` });
    expect(localOrigin.status).not.toBe(403);
  });

  it('serves many concurrent sessions', async () => {
    const { gw } = await unchangedThree();
    const clients: Client[] = await Promise.all(
      Array.from({ length: 24 }, (_, i) => connectHttp(cleanup, gw.url, `client-${i}`)),
    );
    const results = await Promise.all(
      clients.map(async (client, i) => {
        const { items } = await listAll(client);
        const read = await client.request({
          method: 'resources/read',
          params: { uri: `alpha+test://alpha/r/${i % 25}` },
        });
        return { count: items.length, uri: read.contents[0]?.uri };
      }),
    );
    results.forEach((r, i) => {
      expect(r.count).toBe(36);
      expect(r.uri).toBe(`alpha+test://alpha/r/${i % 25}`);
    });
  });
});
