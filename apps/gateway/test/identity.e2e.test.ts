import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { WebSocketClientTransport } from '@switchyard/core/listener';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  Cleanup,
  connectHttp,
  eventually,
  GATEWAY_CLI,
  httpUpstream,
  rawInitialize,
  rawPost,
  startGateway,
  writeConfig,
} from './support/harness.js';

// Client identities (DESIGN §8 "Clients and identity"): bearer tokens on HTTP and WebSocket, the
// anonymous identity, 401s, sessions bound to their client, and identity + groups on every request
// context, as a plugin sees them.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const WHOAMI = fileURLToPath(new URL('./fixtures/whoami-plugin.js', import.meta.url));
const ALICE = 'alice-token-7f3a9c2e';
const BOT = 'ci-bot-token-0b1d4e8f';

async function gatewayWithClients(extra: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  const docs = await httpUpstream(cleanup, { name: 'docs', resources: 3 });
  const gw = await startGateway(
    cleanup,
    {
      listen: {
        http: { host: '127.0.0.1', port: 0, path: '/mcp' },
        ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
      },
      mcpServers: { docs: { url: docs.url } },
      clients: {
        alice: { token: '${ALICE_TOKEN}', groups: ['platform', 'readers'] },
        'ci-bot': { token: '${CI_TOKEN}' },
      },
      plugins: [[WHOAMI]],
      ...extra,
    },
    { env: { ALICE_TOKEN: ALICE, CI_TOKEN: BOT, ...env }, args: ['--log-level', 'debug'] },
  );
  // startGateway returns once HTTP listens; the WebSocket listener starts after it.
  const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
  return { gw, docs: docs.server, wsUrl };
}

async function whoami(
  client: Client,
): Promise<{ identity: Record<string, unknown>; sameAsSession: boolean }> {
  const result = (await client.request({ method: 'resources/read', params: { uri: 'whoami://me' } })) as {
    contents: { text: string }[];
  };
  return JSON.parse(result.contents[0]!.text);
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('client identities over HTTP', () => {
  it('answers 401 with a Bearer challenge when clients are configured and no anonymous identity is', async () => {
    const { gw } = await gatewayWithClients();
    const missing = await rawPost(gw.url, initialize);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(JSON.stringify(missing.json)).toMatch(/Authorization: Bearer/);
    const wrong = await rawPost(gw.url, initialize, { authorization: 'Bearer not-a-client-token' });
    expect(wrong.status).toBe(401);
    const malformed = await rawPost(gw.url, initialize, { authorization: `Basic ${ALICE}` });
    expect(malformed.status).toBe(401);
    const ok = await rawPost(gw.url, initialize, { authorization: `Bearer ${ALICE}` });
    expect(ok.status).toBe(200);
  });

  it('gives every request context the client identity and groups, on legacy and modern HTTP', async () => {
    const { gw } = await gatewayWithClients();
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: ALICE });
    expect(await whoami(alice)).toEqual({
      identity: { id: 'alice', groups: ['platform', 'readers'], anonymous: false },
      sameAsSession: true,
    });
    const bot = await connectHttp(cleanup, gw.url, 'bot', { token: BOT });
    expect((await whoami(bot)).identity).toEqual({ id: 'ci-bot', groups: [], anonymous: false });
    // Upstream requests still work for an authenticated client.
    const list = (await alice.request({ method: 'resources/list', params: {} })) as { resources: unknown[] };
    expect(list.resources).toHaveLength(3);

    const modern = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(gw.url), {
        requestInit: { headers: { authorization: `Bearer ${BOT}` } },
      }),
    );
    cleanup.add(() => modern.close());
    expect(modern.getProtocolEra()).toBe('modern');
    expect((await whoami(modern)).identity).toMatchObject({ id: 'ci-bot' });
  });

  it('delivers each upstream update exactly once to the modern listens of several clients', async () => {
    const { gw, docs } = await gatewayWithClients();
    const received = { alice: [] as string[], bot: [] as string[] };
    for (const [who, token] of [
      ['alice', ALICE],
      ['bot', BOT],
    ] as const) {
      const client = new Client({ name: who, version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(gw.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      cleanup.add(() => client.close());
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        received[who].push(String(n.params.uri));
      });
      const listen = await client.listen({
        resourceSubscriptions: ['docs+test://docs/r/0', 'docs+test://docs/r/1'],
      });
      cleanup.add(() => listen.close());
    }
    await docs.triggerUpdated('test://docs/r/0');
    // Updates on one stream arrive in order: once r/1 is in, any duplicate of r/0 would be too.
    await docs.triggerUpdated('test://docs/r/1');
    await eventually(
      () =>
        (received.alice.includes('docs+test://docs/r/1') && received.bot.includes('docs+test://docs/r/1')) ||
        undefined,
      'both clients to see the second update',
    );
    expect(received.alice).toEqual(['docs+test://docs/r/0', 'docs+test://docs/r/1']);
    expect(received.bot).toEqual(['docs+test://docs/r/0', 'docs+test://docs/r/1']);
  });

  it('binds a session to the client that opened it', async () => {
    const { gw } = await gatewayWithClients();
    const init = await rawPost(gw.url, initialize, { authorization: `Bearer ${ALICE}` });
    const sessionId = init.headers.get('mcp-session-id')!;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/list', params: {} });
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    expect((await rawPost(gw.url, list, { ...headers, authorization: `Bearer ${BOT}` })).status).toBe(403);
    expect((await rawPost(gw.url, list, headers)).status).toBe(401);
    expect((await rawPost(gw.url, list, { ...headers, authorization: `Bearer ${ALICE}` })).status).toBe(200);
  });

  it('lets tokenless requests in as the anonymous identity when it is set, but still refuses a wrong token', async () => {
    const { gw } = await gatewayWithClients({ anonymous: 'local' });
    const anon = await connectHttp(cleanup, gw.url, 'anon');
    expect((await whoami(anon)).identity).toEqual({ id: 'local', groups: [], anonymous: true });
    expect((await rawPost(gw.url, initialize, { authorization: 'Bearer wrong' })).status).toBe(401);
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: ALICE });
    expect((await whoami(alice)).identity).toMatchObject({ id: 'alice', anonymous: false });
  });

  it('serves everyone as the default anonymous identity when no clients are configured', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1 });
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url: docs.url } },
      plugins: [[WHOAMI]],
    });
    const { sessionId } = await rawInitialize(gw.url);
    expect(sessionId).toBeTruthy();
    const client = await connectHttp(cleanup, gw.url, 'any', { token: 'whatever' });
    expect((await whoami(client)).identity).toEqual({ id: 'anonymous', groups: [], anonymous: true });
  });

  it('never logs a token, not even a wrong one', async () => {
    const { gw } = await gatewayWithClients();
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: ALICE });
    await whoami(alice);
    await rawPost(gw.url, initialize, { authorization: 'Bearer mistyped-secret-token-123' });
    await gw.waitForLine(/unauthorized/);
    const logs = gw.stderr();
    expect(logs).not.toContain(ALICE);
    expect(logs).not.toContain(BOT);
    expect(logs).not.toContain('mistyped-secret-token-123');
  });
});

describe('client identities over WebSocket and stdio', () => {
  it('checks the bearer token at the WebSocket upgrade', async () => {
    const { wsUrl } = await gatewayWithClients();
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, ['mcp']);
      cleanup.add(() => ws.terminate());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
      });
      ws.once('open', () => resolve(101));
    });
    expect(status).toBe(401);
    const client = new Client({ name: 'ws', version: '1' });
    await client.connect(
      new WebSocketClientTransport(new URL(wsUrl), { headers: { authorization: `Bearer ${ALICE}` } }),
    );
    cleanup.add(() => client.close());
    expect((await whoami(client)).identity).toMatchObject({ id: 'alice', groups: ['platform', 'readers'] });
  });

  it('gives stdio sessions the anonymous identity, with the groups of the client it names', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1 });
    const config = await writeConfig(cleanup, {
      mcpServers: { docs: { url: docs.url } },
      clients: { ops: { token: 'ops-token-12345678', groups: ['ops'] } },
      anonymous: 'ops',
      plugins: [[WHOAMI]],
    });
    const client = new Client({ name: 'stdio', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [GATEWAY_CLI, '--config', config],
        stderr: 'ignore',
      }),
    );
    cleanup.add(() => client.close());
    expect((await whoami(client)).identity).toEqual({ id: 'ops', groups: ['ops'], anonymous: true });
  });
});
