import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { WebSocketClientTransport } from '@switchyard/core/listener';
import type { TestServerOptions } from '@switchyard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  eventually,
  GATEWAY_CLI,
  httpUpstream,
  nextNotification,
  rawPost,
  startGateway,
  writeConfig,
} from './support/harness.js';
import { answerTo, RawWs } from './support/raw-wire.js';
import { spawnStdioGateway } from './support/stdio.js';

// Modern-era clients (2026-07-28) of the gateway over stdio, HTTP and WebSocket, in front of a legacy and
// a modern upstream.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
/**
 * For the two gateways the tests share: a stdio one with its one modern client, and an HTTP one that each
 * test connects its own clients to. Each test subscribes, listens to or counts only what no other test
 * on that gateway touches (its own URI, the upstream's listen count relative to what it saw first).
 */
const shared = new Cleanup();
afterAll(() => shared.run());

/** Probes in place instead of on a sibling process (the SDK does that for the base class only). */
class InPlaceStdio extends StdioClientTransport {}

const upstream = (options: TestServerOptions, owner = cleanup) => httpUpstream(owner, options);

/**
 * The two upstreams both shared gateways front: a legacy one with paged resources, and a modern one whose
 * reads carry their own freshness hints.
 */
async function oldAndModernUpstreams(owner: Cleanup) {
  const old = await upstream({ name: 'old', resources: 6, pageSize: 3 }, owner);
  const mod = await upstream(
    { name: 'mod', modern: true, resources: 2, cacheTtlMs: 60_000, cacheScope: 'public' },
    owner,
  );
  return { old, mod };
}

async function startModernClientOverStdio(owner: Cleanup) {
  const { old, mod } = await oldAndModernUpstreams(owner);
  const config = await writeConfig(owner, { mcpServers: { old: { url: old.url }, mod: { url: mod.url } } });
  const client = new Client(
    { name: 'modern-client', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new InPlaceStdio({
      command: process.execPath,
      args: [GATEWAY_CLI, '--config', config],
      stderr: 'ignore',
    }),
  );
  owner.add(() => client.close());
  return { client, old, mod };
}

let stdioShared: ReturnType<typeof startModernClientOverStdio> | undefined;
/** The shared stdio gateway's modern client (the stdio gateway is the client's own child). */
function modernClientOverStdio() {
  stdioShared ??= startModernClientOverStdio(shared);
  return stdioShared;
}

describe('modern clients over stdio', () => {
  it('negotiates the modern era and gets freshness hints on every cacheable result', async () => {
    const { client } = await modernClientOverStdio();
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const first = (await client.request({ method: 'resources/list', params: {} })) as Record<string, unknown>;
    expect(first).toMatchObject({ ttlMs: 0, cacheScope: 'private' }); // old (legacy) says nothing: private
    const second = (await client.request({
      method: 'resources/list',
      params: { cursor: first.nextCursor as string },
    })) as Record<string, unknown>;
    expect(second.cacheScope).toBe('private'); // one scope for the whole enumeration
    // A read passes the upstream's own hints through; a legacy upstream's read gets the safe default.
    const hinted = (await client.request({
      method: 'resources/read',
      params: { uri: 'mod+test://mod/r/1' },
    })) as Record<string, unknown>;
    expect(hinted).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    const plain = (await client.request({
      method: 'resources/read',
      params: { uri: 'old+test://old/r/1' },
    })) as Record<string, unknown>;
    expect(plain).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'old+test://old/missing' } }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('listens to a modern upstream resource through the gateway', async () => {
    const { client, mod } = await modernClientOverStdio();
    const base = await eventually(() => mod.server.stats.listens, 'the upstream listen count');
    const updated = nextNotification(client, 'notifications/resources/updated');
    const subscription = await client.listen({ resourceSubscriptions: ['mod+test://mod/r/0'] });
    await eventually(() => mod.server.stats.listens === (base ?? 0) + 1, 'the upstream listen stream');
    await mod.server.triggerUpdated('test://mod/r/0');
    expect(await updated).toMatchObject({ uri: 'mod+test://mod/r/0' });
    await subscription.close();
    await eventually(() => mod.server.stats.listens === base, 'the upstream listen stream to close');
  });
});

/** The shared network gateway: HTTP and WebSocket listeners (announced once both accept connections). */
async function startHttpGateway(owner: Cleanup) {
  const { old, mod } = await oldAndModernUpstreams(owner);
  const gw = await startGateway(owner, {
    listen: {
      http: { host: '127.0.0.1', port: 0, path: '/mcp' },
      ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
    },
    mcpServers: { old: { url: old.url }, mod: { url: mod.url } },
  });
  const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
  return { old, mod, gw: Object.assign(gw, { wsUrl }) };
}

let httpShared: ReturnType<typeof startHttpGateway> | undefined;
/** The shared HTTP gateway and a modern client of the test's own (closed after the test). */
async function modernClientOverHttp() {
  httpShared ??= startHttpGateway(shared);
  const { old, mod, gw } = await httpShared;
  const client = new Client(
    { name: 'modern-client', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
  cleanup.add(() => client.close());
  return { client, old, mod, gw };
}

/** The shared network gateway and an SDK client of the test's own over its WebSocket listener. */
async function modernClientOverWs() {
  httpShared ??= startHttpGateway(shared);
  const { old, mod, gw } = await httpShared;
  const client = new Client(
    { name: 'modern-ws-client', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new WebSocketClientTransport(new URL(gw.wsUrl)));
  cleanup.add(() => client.close());
  return { client, old, mod, gw };
}

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

describe('modern clients over Streamable HTTP, beside legacy sessions at the same endpoint', () => {
  it('serves a modern client statelessly with freshness hints, and a legacy client at the same time', async () => {
    const { client, gw } = await modernClientOverHttp();
    expect(client.getProtocolEra()).toBe('modern');
    const page = (await client.request({ method: 'resources/list', params: {} })) as Record<string, unknown>;
    expect(page).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const hinted = (await client.request({
      method: 'resources/read',
      params: { uri: 'mod+test://mod/r/1' },
    })) as Record<string, unknown>;
    expect(hinted).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'old+test://old/missing' } }),
    ).rejects.toMatchObject({ code: -32602 });
    const legacy = await connectHttp(cleanup, gw.url, 'legacy');
    expect(legacy.getProtocolEra()).toBe('legacy');
    const legacyPage = (await legacy.request({ method: 'resources/list', params: {} })) as Record<
      string,
      unknown
    >;
    expect(legacyPage).not.toHaveProperty('ttlMs');
  });

  it('checks the modern request headers (-32020) and the protocol version (-32022)', async () => {
    const { gw } = await modernClientOverHttp();
    const read = (id: number, version: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'resources/read',
        params: {
          uri: 'old+test://old/r/1',
          _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': version },
        },
      });
    const mismatch = await rawPost(gw.url, read(1, '2026-07-28'), {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'resources/list',
      'mcp-name': 'old+test://old/r/1',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json).toMatchObject({ error: { code: -32020 } });
    const unsupported = await rawPost(gw.url, read(2, '2099-01-01'), {
      'mcp-protocol-version': '2099-01-01',
      'mcp-method': 'resources/read',
      'mcp-name': 'old+test://old/r/1',
    });
    expect(unsupported.json).toMatchObject({
      error: {
        code: -32022,
        data: { requested: '2099-01-01', supported: expect.arrayContaining(['2026-07-28']) },
      },
    });
  });
  it('answers methods the 2026-07-28 revision removed, and unknown ones, with HTTP 404 and -32601', async () => {
    const { gw } = await modernClientOverHttp();
    const call = (id: number, method: string, params: Record<string, unknown> = {}) =>
      rawPost(
        gw.url,
        JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } }),
        {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}),
        },
      );
    const removed = [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
    ];
    // No upstream here runs tool calls as tasks: the Tasks extension's methods are unknown ones.
    const unknown = ['unknown/method', 'tasks/get', 'tasks/update', 'tasks/cancel'];
    for (const [i, method] of [...removed, ...unknown].entries()) {
      const params =
        method === 'initialize'
          ? { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' } }
          : method === 'logging/setLevel'
            ? { level: 'info' }
            : method.startsWith('resources/')
              ? { uri: 'old+test://old/r/1' }
              : method.startsWith('tasks/')
                ? { taskId: 'some-task' }
                : {};
      const answer = await call(i + 1, method, params);
      expect({ method, status: answer.status, json: answer.json }).toMatchObject({
        method,
        status: 404,
        json: { id: i + 1, error: { code: -32601 } },
      });
      // A method no feature answers is refused by the endpoint itself, in the listeners' one error form.
      if (unknown.includes(method))
        expect({ method, json: answer.json }).toMatchObject({
          method,
          json: { error: { data: { reason: 'method_not_found' } } },
        });
    }
  });
});

describe('modern clients over WebSocket', () => {
  it("negotiates the modern era with server/discover, and gets its era's answers", async () => {
    const { client, gw } = await modernClientOverWs();
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()?.name).toBe('switchyard');
    const hinted = (await client.request({
      method: 'resources/read',
      params: { uri: 'mod+test://mod/r/1' },
    })) as Record<string, unknown>;
    expect(hinted).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    // The revision has no ping: -32601 on a WebSocket as on every other wire.
    const raw = await RawWs.open(gw.wsUrl);
    cleanup.add(() => raw.close());
    raw.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } }),
    );
    expect(await raw.waitFor(answerTo(1), 'the discover answer')).toMatchObject({
      result: { supportedVersions: ['2026-07-28'] },
    });
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: envelope } }));
    expect(await raw.waitFor(answerTo(2), 'the ping answer')).toMatchObject({ error: { code: -32601 } });
  });
});

describe('modern listen streams, on every transport', () => {
  for (const [name, connect] of [
    ['stdio', modernClientOverStdio],
    ['http', modernClientOverHttp],
    ['ws', modernClientOverWs],
  ] as const) {
    it(`holds a legacy upstream's resources/subscribe for as long as the listen is open (${name})`, async () => {
      const { client, old } = await connect();
      const updated = nextNotification(client, 'notifications/resources/updated');
      const subscription = await client.listen({ resourceSubscriptions: ['old+test://old/r/2'] });
      expect(subscription.honoredFilter.resourceSubscriptions).toEqual(['old+test://old/r/2']);
      await eventually(
        () => old.server.stats.subscribed['test://old/r/2'] === 1,
        'the upstream subscription',
      );
      await old.server.triggerUpdated('test://old/r/2');
      expect(await updated).toMatchObject({ uri: 'old+test://old/r/2' });
      await subscription.close(); // stdio: notifications/cancelled; HTTP: the stream closes
      await eventually(() => old.server.stats.subscribed['test://old/r/2'] === 0, 'the upstream unsubscribe');
    });

    it(`delivers list changes and stamps the subscription id on every message (${name})`, async () => {
      const { client, old } = await connect();
      const changed = nextNotification(client, 'notifications/resources/list_changed');
      const updated = nextNotification(client, 'notifications/resources/updated');
      const subscription = await client.listen({
        resourcesListChanged: true,
        resourceSubscriptions: ['old+test://old/r/0'],
      });
      expect(subscription.honoredFilter).toMatchObject({ resourcesListChanged: true });
      await eventually(
        () => old.server.stats.subscribed['test://old/r/0'] === 1,
        'the upstream subscription',
      );
      await old.server.triggerListChanged();
      const change = await changed;
      await old.server.triggerUpdated('test://old/r/0');
      const update = await updated;
      for (const params of [change, update]) {
        expect(
          (params._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'],
        ).toBeDefined();
      }
      await subscription.close();
    });
  }
});

describe('JSON-RPC batches, the same on every wire', () => {
  const refusal = {
    id: null,
    error: {
      code: -32600,
      message:
        'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
    },
  };
  const read = (id: number, meta?: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'resources/read',
    params: { uri: 'old+test://old/r/3', ...(meta ? { _meta: meta } : {}) },
  });
  const initialize = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  /** A batch of 2026-07-28 reads (one claim-less read beside them changes nothing). */
  const modernBatch = (ids: number[]) =>
    JSON.stringify([read(ids[0]!), ...ids.slice(1).map((id) => read(id, envelope))]);

  it('refuses a batch holding a 2026-07-28 request whole, before and after a 2025-11-25 handshake', async () => {
    httpShared ??= startHttpGateway(shared);
    const { gw, old, mod } = await httpShared;
    const reads = () => old.server.stats.requests['resources/read'] ?? 0;
    const before = reads();

    const http = await rawPost(gw.url, modernBatch([1, 2]), { 'mcp-protocol-version': '2026-07-28' });
    expect(http).toMatchObject({ status: 400, json: refusal });
    const opened = await rawPost(gw.url, JSON.stringify(initialize(3)));
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')! };
    await rawPost(gw.url, JSON.stringify(initialized), session);
    expect(await rawPost(gw.url, modernBatch([4, 5]), session)).toMatchObject({
      status: 400,
      json: refusal,
    });

    const ws = await RawWs.open(gw.wsUrl);
    cleanup.add(() => ws.close());
    // A wire without a status answers each request of the batch with the refusal, by its id.
    ws.send(modernBatch([11, 12]));
    for (const id of [11, 12]) {
      expect(await ws.waitFor(answerTo(id), `the refusal of ${id}`)).toEqual({
        jsonrpc: '2.0',
        ...refusal,
        id,
        error: { ...refusal.error, data: {} },
      });
    }
    ws.send(JSON.stringify(initialize(13)));
    await ws.waitFor(answerTo(13), 'the initialize answer');
    ws.send(JSON.stringify(initialized));
    ws.send(modernBatch([14, 15]));
    for (const id of [14, 15])
      expect(await ws.waitFor(answerTo(id), `the refusal of ${id}`)).toMatchObject({ error: refusal.error });

    const config = await writeConfig(cleanup, {
      mcpServers: { old: { url: old.url }, mod: { url: mod.url } },
    });
    const stdio = spawnStdioGateway(cleanup, config);
    stdio.send(modernBatch([21, 22]));
    for (const id of [21, 22])
      expect(await stdio.waitForMessage(answerTo(id), `the refusal of ${id}`)).toMatchObject({
        error: refusal.error,
      });
    stdio.send(initialize(23));
    await stdio.waitForMessage(answerTo(23), 'the initialize answer');
    stdio.send(initialized);
    stdio.send(modernBatch([24, 25]));
    for (const id of [24, 25])
      expect(await stdio.waitForMessage(answerTo(id), `the refusal of ${id}`)).toMatchObject({
        error: refusal.error,
      });

    // Nothing of a refused batch was served: a read on each wire afterwards is the only one upstream.
    stdio.send(read(26));
    await stdio.waitForMessage(answerTo(26), 'the stdio read');
    ws.send(JSON.stringify(read(16)));
    await ws.waitFor(answerTo(16), 'the WebSocket read');
    expect(reads()).toBe(before + 2);
    for (const id of [1, 2, 4, 5]) expect(JSON.stringify(http.json)).not.toContain(`"id":${id}`);
    // Each request of a refused batch was answered once, with the refusal, and nothing else.
    for (const id of [11, 12, 14, 15]) {
      expect(ws.messages.filter(answerTo(id))).toEqual([
        expect.objectContaining({ error: expect.objectContaining({ code: -32600 }) }),
      ]);
    }
    for (const id of [21, 22, 24, 25]) {
      const lines = stdio.lines.filter((l) => l.includes(`"id":${id}`));
      expect(lines.map((l) => (JSON.parse(l) as { error?: { code: number } }).error?.code)).toEqual([-32600]);
    }
  });

  it('says what a claim-less batch under a 2026-07-28 header lacks, not that the gateway lacks 2026-07-28', async () => {
    // Found from outside: "unsupported MCP-Protocol-Version 2026-07-28 (supported: 2025-11-25, …)".
    httpShared ??= startHttpGateway(shared);
    const { gw } = await httpShared;
    const answer = await rawPost(gw.url, JSON.stringify([read(41), read(42)]), {
      'mcp-protocol-version': '2026-07-28',
    });
    expect(answer).toMatchObject({
      status: 400,
      json: { error: { data: { reason: 'unsupported_protocol_version' } } },
    });
    const message = (answer.json as { error: { message: string } }).error.message;
    expect(message).toMatch(/2026-07-28 is for one 2026-07-28 request \(no batch\).*2025-era message/);
    expect(message).not.toMatch(/unsupported MCP-Protocol-Version/);
  });

  it('serves a batch of 2025 requests on a 2025-11-25 session, as HTTP does', async () => {
    httpShared ??= startHttpGateway(shared);
    const { gw } = await httpShared;
    const batch = JSON.stringify([read(31), read(32)]);
    const opened = await rawPost(gw.url, JSON.stringify(initialize(30)));
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')! };
    await rawPost(gw.url, JSON.stringify(initialized), session);
    const http = await rawPost(gw.url, batch, session);
    expect(http).toMatchObject({
      status: 200,
      json: [
        { id: 31, result: {} },
        { id: 32, result: {} },
      ],
    });

    const ws = await RawWs.open(gw.wsUrl);
    cleanup.add(() => ws.close());
    ws.send(JSON.stringify(initialize(30)));
    await ws.waitFor(answerTo(30), 'the initialize answer');
    ws.send(JSON.stringify(initialized));
    ws.send(batch);
    for (const id of [31, 32])
      expect(await ws.waitFor(answerTo(id), `answer ${id}`)).toMatchObject({ result: { contents: [{}] } });
  });
});

describe('a 2026-07-28 call to a 2025 upstream that does not answer in time', () => {
  it('fails with upstream_timeout, and the upstream call is cancelled', async () => {
    const old = await upstream({ name: 'old', behaviorTools: true });
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      // Long enough for the handshake on a loaded machine (it is timed too), short beside the call's 20 s.
      mcpServers: { old: { url: old.url, timeoutMs: 1500 } },
    });
    const client = new Client(
      { name: 'modern-client', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
    cleanup.add(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    // The call is bridged as a suspendable call whose deadline shares the upstream call's controller.
    await expect(
      client.request({ method: 'tools/call', params: { name: 'old__slow', arguments: { ms: 20_000 } } }),
    ).rejects.toMatchObject({ code: -32004 });
    expect(old.server.stats.toolCalls.slow).toBe(1);
    await eventually(() => old.server.stats.activeToolCalls === 0, 'the upstream call to be cancelled');
  });
});
