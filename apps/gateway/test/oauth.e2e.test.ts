import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { WebSocketClientTransport } from '@switchyard/core/listener';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  Cleanup,
  connectHttp,
  eventually,
  freePort,
  type GatewayProcess,
  httpUpstream,
  listAll,
  rawPost,
  startGateway,
} from './support/harness.js';
import { startIssuer, type TestIssuer } from './support/issuer.js';

// The gateway as an OAuth 2.1 resource server (DESIGN §8 "OAuth identities"), end to end: a real
// authorization server (oidc-provider), the real gateway CLI, and the official SDK client with its own
// OAuth support. One issuer and one gateway serve every case but the issuer-down-at-start one.

const cleanup = new Cleanup();
const shared = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());

const WHOAMI = fileURLToPath(new URL('./fixtures/whoami-plugin.js', import.meta.url));
const SUBJECT = fileURLToPath(new URL('./fixtures/subject-token-plugin.js', import.meta.url));
const OPS = 'ops-static-token-5c1e9a7b';
const READER = { clientId: 'reader-app', clientSecret: 'reader-secret-3f8d21', scope: 'mcp mcp:admin' };
const issuerClients = [
  { ...READER, claims: { groups: ['readers'] } },
  { clientId: 'bare-app', clientSecret: 'bare-secret-77a0c4', scope: 'other' },
];
const FORBIDDEN = { code: -32007, data: { reason: 'forbidden' } };
/** Every token a test used: none may appear in the gateway's (debug) log. */
const tokensSeen = new Set<string>([OPS]);

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function gatewayConfig(issuer: string, port: number, upstreams: Record<string, string>) {
  return {
    listen: {
      http: { host: '127.0.0.1', port, path: '/mcp' },
      ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
    },
    mcpServers: Object.fromEntries(Object.entries(upstreams).map(([name, url]) => [name, { url }])),
    clients: { ops: { token: '${OPS_TOKEN}', groups: ['platform'] } },
    auth: {
      oauth: {
        issuer,
        resource: `http://127.0.0.1:${port}/mcp`,
        groupsClaim: 'groups',
        scopes: { required: ['mcp'], groups: { 'mcp:admin': 'admins' } },
        // Tests rotate keys right after a fetch, and watch a token expire: production keeps the defaults.
        jwksCooldownMs: 0,
        clockToleranceSec: 0,
      },
    },
    plugins: [
      [WHOAMI],
      [SUBJECT],
      [
        '@switchyard/plugin-access',
        {
          default: 'deny',
          rules: [
            { effect: 'allow', groups: ['admins'] },
            { effect: 'allow', groups: ['platform'] },
            { effect: 'allow', groups: ['readers'], servers: ['docs'] },
          ],
        },
      ],
    ],
  };
}

async function startUpstreams(into: Cleanup) {
  const docs = await httpUpstream(into, { name: 'docs', resources: 2 });
  const wiki = await httpUpstream(into, { name: 'wiki', resources: 2 });
  return { docs: docs.url, wiki: wiki.url };
}

async function whoami(client: Client): Promise<Record<string, unknown>> {
  const result = (await client.request({ method: 'resources/read', params: { uri: 'whoami://me' } })) as {
    contents: { text: string }[];
  };
  return JSON.parse(result.contents[0]!.text).identity;
}

const uris = async (client: Client) => (await listAll(client)).items.map((r) => String(r.uri)).sort();

/** The status and headers a WebSocket upgrade gets (101 when it opens). */
function upgrade(url: string, token?: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['mcp'], { headers: token ? { authorization: `Bearer ${token}` } : {} });
    cleanup.add(() => ws.terminate());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.resume();
    });
    ws.once('open', () => resolve({ status: 101, headers: {} }));
  });
}

describe('OAuth resource server', () => {
  let issuer: TestIssuer;
  let gw: GatewayProcess;
  let resource: string;
  let wsUrl: string;

  /** A real token from the issuer's token endpoint, for `resource` unless told otherwise. */
  const token = async (request: { clientId?: string; scope?: string; resource?: string } = {}) => {
    const answer = await issuer.clientCredentialsToken({
      clientId: request.clientId ?? READER.clientId,
      scope: request.scope ?? 'mcp',
      resource: request.resource ?? resource,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    tokensSeen.add(answer.accessToken!);
    return answer.accessToken!;
  };

  beforeAll(async () => {
    issuer = await startIssuer({ clients: issuerClients });
    shared.add(() => issuer.close());
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    gw = await startGateway(shared, gatewayConfig(issuer.url, port, await startUpstreams(shared)), {
      env: { OPS_TOKEN: OPS },
      args: ['--log-level', 'debug'],
    });
    wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
  });

  it('refuses a tokenless request with a challenge that leads to its RFC 9728 metadata', async () => {
    const refused = await rawPost(gw.url, initialize);
    expect(refused.status).toBe(401);
    const metadataUrl = resource.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl}", scope="mcp"`,
    );
    expect(refused.json).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/access token/) },
    });
    for (const url of [metadataUrl, resource.replace('/mcp', '/.well-known/oauth-protected-resource')]) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(await res.json()).toMatchObject({
        resource,
        authorization_servers: [issuer.url],
        scopes_supported: ['mcp', 'mcp:admin'],
        bearer_methods_supported: ['header'],
      });
    }
    expect((await upgrade(wsUrl)).headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${metadataUrl}", scope="mcp"`,
    );
  });

  it('serves an SDK client that discovers the issuer and gets a token for the gateway; its groups decide what it sees', async () => {
    const provider = new ClientCredentialsProvider({ ...READER, expectedIssuer: issuer.url });
    // Every HTTP exchange the client makes, gateway and issuer alike.
    const exchanges: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = input instanceof Request ? input.url : String(input);
      const body = init?.body instanceof URLSearchParams ? init.body : undefined;
      const target = body?.get('resource') ? ` resource=${body.get('resource')}` : '';
      exchanges.push(`${init?.method ?? 'GET'} ${url} ${res.status}${target}`);
      return res;
    };
    const client = new Client({ name: 'reader', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gw.url), { authProvider: provider, fetch: recording }),
    );
    cleanup.add(() => client.close());
    tokensSeen.add(provider.tokens()!.access_token);
    // Refused, then discovery (RFC 9728, then the issuer's metadata), a token for this resource, served.
    const metadataUrl = resource.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
    expect(exchanges[0]).toBe(`POST ${gw.url} 401`);
    expect(exchanges).toContain(`GET ${metadataUrl} 200`);
    expect(exchanges).toContain(`POST ${issuer.url}/token 200 resource=${resource}`);
    expect(exchanges.at(-1)).toMatch(new RegExp(`^(POST|GET) ${gw.url} 20\\d`));
    expect(exchanges.indexOf(`GET ${metadataUrl} 200`)).toBeLessThan(
      exchanges.indexOf(`POST ${issuer.url}/token 200 resource=${resource}`),
    );
    // The challenge asked for scope "mcp": the token carries no mcp:admin, so groups come from the claim.
    expect(await whoami(client)).toEqual({ id: 'reader-app', groups: ['readers'], anonymous: false });
    expect(await uris(client)).toEqual(['docs+test://docs/r/0', 'docs+test://docs/r/1']);
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'wiki+test://wiki/r/0' } }),
    ).rejects.toMatchObject(FORBIDDEN);

    // A scope mapped to a group: mcp:admin makes the same client an admin, who sees every server,
    // on the legacy and the modern era alike.
    const admin = await token({ scope: 'mcp mcp:admin' });
    const legacy = await connectHttp(cleanup, gw.url, 'admin', { token: admin });
    expect(await whoami(legacy)).toEqual({
      id: 'reader-app',
      groups: ['readers', 'admins'],
      anonymous: false,
    });
    expect(await uris(legacy)).toHaveLength(4);
    const modern = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(gw.url), {
        requestInit: { headers: { authorization: `Bearer ${admin}` } },
      }),
    );
    cleanup.add(() => modern.close());
    expect(modern.getProtocolEra()).toBe('modern');
    expect(await whoami(modern)).toMatchObject({ id: 'reader-app', groups: ['readers', 'admins'] });
  });

  it('serves a WebSocket opened with a token, and static client tokens beside OAuth', async () => {
    const ws = new Client({ name: 'ws', version: '1' });
    await ws.connect(
      new WebSocketClientTransport(new URL(wsUrl), { headers: { authorization: `Bearer ${await token()}` } }),
    );
    cleanup.add(() => ws.close());
    expect(await whoami(ws)).toEqual({ id: 'reader-app', groups: ['readers'], anonymous: false });
    // The connection ends when its token expires (in 2-3 s: enough to connect on a busy machine).
    const now = Math.floor(Date.now() / 1000);
    const shortLived = await issuer.mint({ sub: 'reader-app', aud: resource, scope: 'mcp', exp: now + 3 });
    tokensSeen.add(shortLived);
    const socket = new WebSocket(wsUrl, ['mcp'], { headers: { authorization: `Bearer ${shortLived}` } });
    cleanup.add(() => socket.terminate());
    const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the connection outlived its token')), 10_000);
      socket.once('error', reject);
      socket.once('close', (code, reason) => {
        clearTimeout(timer);
        resolve({ code, reason: reason.toString() });
      });
    });
    expect(closed).toEqual({ code: 1008, reason: 'access token expired: reconnect with a new token' });
    const ops = await connectHttp(cleanup, gw.url, 'ops', { token: OPS });
    expect(await whoami(ops)).toEqual({ id: 'ops', groups: ['platform'], anonymous: false });
    expect(await uris(ops)).toHaveLength(4);
  });

  it('refuses tokens for another audience, expired, forged or without the required scope', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'reader-app', aud: resource, scope: 'mcp' };
    const cases = [
      { why: /another resource/, token: await token({ resource: 'http://127.0.0.1:9/other-server' }) },
      { why: /expired/, token: await issuer.mint({ ...claims, iat: now - 7200, exp: now - 3600 }) },
      { why: /key the issuer does not publish/, token: await issuer.mint(claims, { foreign: true }) },
      { why: /neither a configured client token nor a valid JWT/, token: 'not-a-token-at-all' },
    ];
    for (const { why, token: bad } of cases) {
      tokensSeen.add(bad);
      const refused = await rawPost(gw.url, initialize, { authorization: `Bearer ${bad}` });
      expect(refused.status, String(why)).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(
        /^Bearer error="invalid_token", error_description="[^"]+", scope="mcp", resource_metadata="http:/,
      );
      expect(refused.json).toMatchObject({ error: { code: -32600, message: expect.stringMatching(why) } });
      expect(JSON.stringify(refused.json)).not.toContain(bad);
      expect((await upgrade(wsUrl, bad)).status).toBe(401);
    }
    const unscoped = await token({ clientId: 'bare-app', scope: 'other' });
    const forbidden = await rawPost(gw.url, initialize, { authorization: `Bearer ${unscoped}` });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope".*scope="mcp"/,
    );
    expect((await upgrade(wsUrl, unscoped)).status).toBe(403);
  });

  it("keeps each session's latest token beside its identity (for token exchange), never on it", async () => {
    const digest = (text: string) => createHash('sha256').update(text).digest('hex');
    const read = (uri: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri } });
    const first = await token();
    const init = await rawPost(gw.url, initialize, { authorization: `Bearer ${first}` });
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-06-18',
    };
    const seen = async (bearer: string, uri = 'subject://digest') => {
      const answer = await rawPost(gw.url, read(uri), { ...session, authorization: `Bearer ${bearer}` });
      return JSON.parse(
        (answer.json as { result: { contents: { text: string }[] } }).result.contents[0]!.text,
      );
    };
    expect(await seen(first)).toEqual({ session: digest(first) });
    const refreshed = await token();
    expect(refreshed).not.toBe(first);
    expect(await seen(refreshed)).toEqual({ session: digest(refreshed) });
    const identity = (await seen(refreshed, 'whoami://me')).identity;
    expect(identity).toEqual({ id: 'reader-app', groups: ['readers'], anonymous: false });
    // The session's groups came from its first token: a token with other groups opens its own session.
    const admin = await token({ scope: 'mcp mcp:admin' });
    const other = await rawPost(gw.url, read('whoami://me'), {
      ...session,
      authorization: `Bearer ${admin}`,
    });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ error: { message: expect.stringMatching(/other groups/) } });
    // A static client has no token to exchange.
    const ops = await connectHttp(cleanup, gw.url, 'ops', { token: OPS });
    const opsSeen = (await ops.request({
      method: 'resources/read',
      params: { uri: 'subject://digest' },
    })) as {
      contents: { text: string }[];
    };
    expect(JSON.parse(opsSeen.contents[0]!.text)).toEqual({ session: null });
  });

  it('follows a key rotation at the issuer while it runs', async () => {
    const before = await token();
    expect((await rawPost(gw.url, initialize, { authorization: `Bearer ${before}` })).status).toBe(200);
    const fetches = issuer.requests.filter((path) => path === '/jwks').length;
    await issuer.rotateKeys();
    const after = await token();
    expect(after.split('.')[0]).not.toBe(before.split('.')[0]); // another kid in the header
    expect((await rawPost(gw.url, initialize, { authorization: `Bearer ${after}` })).status).toBe(200);
    expect(issuer.requests.filter((path) => path === '/jwks').length).toBeGreaterThan(fetches);
    // The old key is still published: tokens it signed stay good until they expire.
    expect((await rawPost(gw.url, initialize, { authorization: `Bearer ${before}` })).status).toBe(200);
  });

  it('never writes a token to its log', () => {
    const log = gw.stderr();
    expect(log).toMatch(/request refused/);
    for (const seen of tokensSeen) expect(log).not.toContain(seen);
  });
});

describe('OAuth issuer unreachable at start', () => {
  it('starts, answers OAuth requests 503 until the issuer is up, and serves static clients meanwhile', async () => {
    const issuerPort = await freePort();
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const gw = await startGateway(
      cleanup,
      gatewayConfig(`http://127.0.0.1:${issuerPort}`, port, await startUpstreams(cleanup)),
      { env: { OPS_TOKEN: OPS } },
    );
    const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
    const jwtLike = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const down = await rawPost(gw.url, initialize, { authorization: `Bearer ${jwtLike}` });
    expect(down.status).toBe(503);
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(down.json).toMatchObject({
      error: {
        code: -32000,
        message: expect.stringMatching(/OAuth issuer cannot be reached.*ECONNREFUSED/),
        data: { reason: 'issuer_unavailable' },
      },
    });
    expect((await upgrade(wsUrl, jwtLike)).status).toBe(503);
    expect((await rawPost(gw.url, initialize, { authorization: `Bearer ${OPS}` })).status).toBe(200);

    const issuer = await startIssuer({ port: issuerPort, clients: issuerClients });
    cleanup.add(() => issuer.close());
    const answer = await issuer.clientCredentialsToken({ ...READER, scope: 'mcp', resource });
    const good = answer.accessToken!;
    // The gateway retries discovery in the background with backoff (and on demand once it has passed).
    await eventually(
      async () => (await rawPost(gw.url, initialize, { authorization: `Bearer ${good}` })).status === 200,
      'the gateway to reach the issuer',
      20_000,
    );
    expect(gw.stderr()).toMatch(/OAuth issuer discovered/);
    expect(gw.stderr()).not.toContain(good);
  });
});
