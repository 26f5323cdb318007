import type { Client } from '@modelcontextprotocol/client';
import { TestServer, type TestServerOptions } from '@switchyard/testkit';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, eventually, startGateway } from './support/harness.js';
import { type IssuerOptions, startIssuer, type TestIssuer } from './support/issuer.js';
import { TOKEN_EXCHANGE_GRANT, tokenExchange } from './support/token-exchange.js';

// Upstream credentials (`mcpServers.*.auth`): the gateway's own OAuth tokens from a real authorization
// server (oidc-provider), checked by a real upstream (testkit over HTTP, verifying each JWT against the
// issuer's keys and its own URL as audience). A client's token never travels upstream.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const SECRET = 'gateway-client-secret-5d1e';
/** A downstream token distinctive enough that any appearance upstream would be found. */
const CLIENT_TOKEN = 'downstream-token-never-forward-8c41f';
const httpListen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

/** A testkit upstream over HTTP that serves only requests bearing a valid token of the trusted issuer. */
async function protectedUpstream(options: TestServerOptions) {
  const server = new TestServer(options);
  cleanup.add(() => server.close());
  const seen: { token: string; method?: string; at: number }[] = [];
  const refused = new Set<string>();
  let refuseAll = false;
  let rejections = 0;
  let verify: ((token: string) => Promise<unknown>) | undefined;
  const http = await server.listenHttp({
    authorize: async (req) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      seen.push({ token, method: req.headers['mcp-method'] as string | undefined, at: Date.now() });
      const ok =
        !refuseAll &&
        !refused.has(token) &&
        verify !== undefined &&
        (await verify(token).then(
          () => true,
          () => false,
        ));
      if (!ok) rejections += 1;
      return ok;
    },
  });
  return {
    url: http.url,
    seen,
    refused,
    get rejections() {
      return rejections;
    },
    refuseAll(on: boolean) {
      refuseAll = on;
    },
    /** Accepts JWTs of `issuer` whose audience is this upstream. */
    trust(issuer: TestIssuer) {
      const jwks = createRemoteJWKSet(new URL(`${issuer.url}/jwks`));
      verify = (token) => jwtVerify(token, jwks, { issuer: issuer.url, audience: http.url });
    },
    /** The distinct tokens it was sent, in order. */
    tokens: () => [...new Set(seen.map((s) => s.token))],
  };
}

async function issuerFor(options: IssuerOptions): Promise<TestIssuer> {
  const issuer = await startIssuer(options);
  cleanup.add(() => issuer.close());
  return issuer;
}

const tokenRequests = (issuer: TestIssuer) => issuer.requests.filter((path) => path === '/token').length;
const call = (client: Client, name: string) => client.callTool({ name, arguments: { text: 'hi' } });
const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('upstream credentials: OAuth client credentials', () => {
  it("sends the gateway's own token, never the client's; reuses it; a 401 triggers exactly one refresh", async () => {
    const gh = await protectedUpstream({ name: 'gh', tools: 1 });
    const issuer = await issuerFor({
      clients: [{ clientId: 'switchyard', clientSecret: SECRET, scope: 'repo:read' }],
      resources: { [gh.url]: { scope: 'repo:read', ttlSec: 3600 } },
    });
    gh.trust(issuer);
    const auth = {
      issuer: issuer.url,
      clientId: 'switchyard',
      clientSecret: '${GH_SECRET}',
      scope: 'repo:read',
    };
    const gw = await startGateway(
      cleanup,
      {
        listen: httpListen,
        clients: { alice: { token: '${ALICE_TOKEN}' } },
        mcpServers: { gh: { url: gh.url, auth: { clientCredentials: auth } } },
      },
      { env: { GH_SECRET: SECRET, ALICE_TOKEN: CLIENT_TOKEN } },
    );
    await gw.waitForLine(/\[switchyard:upstream:gh\] connected/);
    const client = await connectHttp(cleanup, gw.url, 'alice', { token: CLIENT_TOKEN });
    await call(client, 'gh__tool_0');
    await call(client, 'gh__tool_0');

    // One token for the handshake, the stream and both calls: fetched once, for this upstream.
    const [first, ...others] = gh.tokens();
    expect(others).toEqual([]);
    expect(tokenRequests(issuer)).toBe(1);
    expect(decodeJwt(first!)).toMatchObject({ iss: issuer.url, aud: gh.url, client_id: 'switchyard' });
    expect(gh.rejections).toBe(0);
    expect(JSON.stringify(gh.seen)).not.toContain(CLIENT_TOKEN);

    // The upstream revokes it: the next call is refused once, the gateway gets one new token and retries.
    gh.refused.add(first!);
    await call(client, 'gh__tool_0');
    expect(tokenRequests(issuer)).toBe(2);
    expect(gh.rejections).toBe(1);
    expect(gh.tokens()).toHaveLength(2);

    // An upstream that refuses every token: one refresh, then a clear error; the connection stays up.
    gh.refuseAll(true);
    const error = await failure(call(client, 'gh__tool_0'));
    expect(error).toMatchObject({ code: -32003 });
    expect(String(error)).toMatch(
      /refused the gateway's credentials \(HTTP 401\) even with a freshly issued token/,
    );
    expect(tokenRequests(issuer)).toBe(3);
    gh.refuseAll(false);
    await call(client, 'gh__tool_0');
    expect(tokenRequests(issuer)).toBe(3);

    expect(JSON.stringify(gh.seen)).not.toContain(CLIENT_TOKEN);
    const log = gw.stderr();
    for (const secret of [SECRET, CLIENT_TOKEN, ...gh.tokens()]) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/upstream:gh\].*(connection lost|request failed)/);
  });

  it('replaces a token before it expires; a refused grant is a clear error without the secret', async () => {
    const brief = await protectedUpstream({ name: 'brief', tools: 1 });
    const issuer = await issuerFor({
      clients: [{ clientId: 'switchyard', clientSecret: SECRET, scope: 'repo:read' }],
      resources: { [brief.url]: { scope: 'repo:read', ttlSec: 3 } },
    });
    brief.trust(issuer);
    const auth = { issuer: issuer.url, clientId: 'switchyard', clientSecret: SECRET };
    const wrong = { ...auth, clientSecret: 'not-the-secret-3e9a' };
    const gw = await startGateway(cleanup, {
      listen: httpListen,
      mcpServers: {
        brief: { url: brief.url, auth: { clientCredentials: auth } },
        wrong: { url: brief.url, auth: { clientCredentials: wrong } },
      },
    });
    const client = await connectHttp(cleanup, gw.url);
    await call(client, 'brief__tool_0');
    const [first] = brief.tokens();
    // Half its lifetime left (1.5 s), a call goes out with a new token; the old one was still valid.
    await eventually(async () => {
      await call(client, 'brief__tool_0');
      return brief.tokens().length > 1;
    }, 'a second token');
    const replacedAt = brief.seen.find((s) => s.token !== first)!.at;
    expect(replacedAt).toBeLessThan(decodeJwt(first!).exp! * 1000);
    expect(brief.rejections).toBe(0);
    expect(brief.tokens()).toHaveLength(2);

    await gw.waitForLine(
      /upstream:wrong\].*could not get an access token \(client_credentials\) from http:\S+: invalid_client/,
    );
    expect(gw.stderr()).not.toContain(wrong.clientSecret);
  });
});

describe('upstream credentials: RFC 8693 token exchange', () => {
  it('gives the upstream a token naming the caller (sub) and the gateway (act); refuses callers without one', async () => {
    const gh = await protectedUpstream({ name: 'gh', tools: 1, modern: true });
    const gatewayResource = 'http://127.0.0.1/mcp';
    const exchange = tokenExchange({ subjectAudience: gatewayResource });
    const issuer = await issuerFor({
      clients: [
        {
          clientId: 'switchyard',
          clientSecret: SECRET,
          scope: 'repo:read',
          grantTypes: ['client_credentials', TOKEN_EXCHANGE_GRANT],
        },
        { clientId: 'alice-app', clientSecret: 'alice-secret', scope: 'mcp' },
      ],
      resources: { [gatewayResource]: { scope: 'mcp' }, [gh.url]: { scope: 'repo:read' } },
      setup: exchange.setup,
      configure: exchange.configure,
    });
    gh.trust(issuer);
    const auth = { issuer: issuer.url, clientId: 'switchyard', clientSecret: SECRET, scope: 'repo:read' };
    const gw = await startGateway(
      cleanup,
      {
        listen: httpListen,
        auth: { oauth: { issuer: issuer.url, resource: gatewayResource } },
        clients: { bot: { token: '${BOT_TOKEN}' } },
        mcpServers: { gh: { url: gh.url, auth: { tokenExchange: auth } } },
      },
      { env: { BOT_TOKEN: CLIENT_TOKEN } },
    );
    await gw.waitForLine(/\[switchyard:upstream:gh\] connected/);
    const grant = await issuer.clientCredentialsToken({
      clientId: 'alice-app',
      scope: 'mcp',
      resource: gatewayResource,
    });
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: grant.accessToken });
    await call(alice, 'gh__tool_0');
    await call(alice, 'gh__tool_0');

    const calls = gh.seen.filter((s) => s.method === 'tools/call');
    expect(calls).toHaveLength(2);
    for (const { token } of calls) {
      expect(decodeJwt(token)).toMatchObject({ sub: 'alice-app', act: { sub: 'switchyard' }, aud: gh.url });
    }
    expect(exchange.exchanges).toBe(1); // cached for the caller
    // The gateway's own traffic (discovery, listings of its own) carries its client-credentials token.
    for (const { token } of gh.seen.filter((s) => s.method !== 'tools/call')) {
      expect(decodeJwt(token)).toMatchObject({ sub: 'switchyard' });
      expect(decodeJwt(token).act).toBeUndefined();
    }
    expect(JSON.stringify(gh.seen)).not.toContain(grant.accessToken);
    expect(gh.rejections).toBe(0);

    // A static-token caller has no OAuth token to exchange: refused, and nothing goes upstream for it.
    const bot = await connectHttp(cleanup, gw.url, 'bot', { token: CLIENT_TOKEN });
    const error = await failure(call(bot, 'gh__tool_0'));
    expect(error).toMatchObject({
      code: -32007,
      data: { reason: 'oauth_identity_required', upstream: 'gh' },
    });
    expect(gh.seen.filter((s) => s.method === 'tools/call')).toHaveLength(2);
    expect(JSON.stringify(gh.seen)).not.toContain(CLIENT_TOKEN);
    expect(gw.stderr()).not.toContain(grant.accessToken!);
  });
});
