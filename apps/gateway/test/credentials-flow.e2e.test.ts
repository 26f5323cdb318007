import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type OAuthTokens, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MemoryStore } from '@switchyard/core';
import { Cleanup } from '@switchyard/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectFlow, type GrantKeeper } from '../src/credentials/connect-flow.js';
import { OAuthServerDirectory, type UserOAuthUpstream } from '../src/credentials/discovery.js';
import { credentialRoutes } from '../src/credentials/routes.js';
import type { UpstreamOAuthServer } from '../src/credentials/types.js';
import {
  type AuthorizationServerOptions,
  startAuthorizationServer,
} from './support/user-oauth/authorization-server.js';
import { consentByHttp } from './support/user-oauth/consent.js';
import { type ProtectedUpstream, startProtectedUpstream } from './support/user-oauth/protected-upstream.js';

// The per-person OAuth flow (DESIGN §14) end to end: the gateway's routes on a plain HTTP server (two
// replicas sharing one store, requests alternating between them), a real authorization server
// (oidc-provider: code + PKCE, refresh, resource indicators, dynamic registration, RFC 9207 iss) and an
// MCP server behind the SDK's bearer auth, consent given over plain HTTP. A keeper stub records what is
// stored; each stored token is tried at the upstream, whose `whoami` names the consenting user.

const cleanup = new Cleanup();
afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  await cleanup.run();
});

const KEY = 'test-credentials-key-0f3a9c2e7b1d4856';
const ALICE = { id: 'alice', groups: [], anonymous: false };
const BOB = { id: 'bob', groups: [], anonymous: false };
const ELEVEN_MINUTES = 11 * 60_000;

interface Stored {
  /** `credentialOwner` of the identity that asked for the link: its kind and id. */
  owner: string;
  upstream: string;
  tokens: OAuthTokens;
  server: UpstreamOAuthServer;
}

class KeeperStub implements GrantKeeper {
  readonly stored: Stored[] = [];
  failing = false;
  async store(owner: string, upstream: string, tokens: OAuthTokens, server: UpstreamOAuthServer) {
    if (this.failing) throw new Error('vault down (test)');
    this.stored.push({ owner, upstream, tokens, server });
  }
}

interface SetupOptions {
  as?: (redirectUri: string) => AuthorizationServerOptions;
  user?: UserOAuthUpstream['user'];
  /** The gateway's public URL (default: its own http://127.0.0.1 origin). */
  publicUrl?: string;
  timeoutMs?: number;
}

/** A gateway callback that reached the server while `intercept` was on: replayed by hand later. */
interface Captured {
  url: string;
  cookie: string;
}

async function setup(options: SetupOptions = {}) {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) =>
    void res.writeHead(503).end();
  const http = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  );
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const publicUrl = options.publicUrl ?? origin;
  const callbackUrl = `${publicUrl.replace(/\/$/, '')}/oauth/callback`;
  const callbackPath = new URL(callbackUrl).pathname;

  const as = await startAuthorizationServer(options.as?.(callbackUrl) ?? {});
  cleanup.add(() => as.close());
  const upstream = await startProtectedUpstream({ issuer: as.url });
  cleanup.add(() => upstream.close());

  // Two replicas sharing one store: every request goes to the other one than the last.
  const store = new MemoryStore();
  const keeper = new KeeperStub();
  const replicas = [0, 1].map(() => {
    const servers = new OAuthServerDirectory({
      upstream: (name) => (name === 'tracker' ? { url: upstream.url, user: options.user ?? {} } : undefined),
      publicUrl,
      key: KEY,
      store,
    });
    const flow = new ConnectFlow({
      publicUrl,
      key: KEY,
      servers,
      keeper,
      store,
      timeoutMs: options.timeoutMs ?? 5_000,
    });
    return { servers, flow, routes: credentialRoutes({ publicUrl, flow }) };
  });
  const captured: Captured[] = [];
  let intercept = false;
  let turn = 0;
  handler = (req, res) => {
    if (intercept && new URL(req.url ?? '/', origin).pathname === callbackPath) {
      captured.push({ url: origin + req.url, cookie: req.headers.cookie ?? '' });
      req.resume();
      return void res.writeHead(200).end('intercepted');
    }
    const replica = replicas[turn++ % replicas.length]!;
    if (!replica.routes(req, res)) res.writeHead(404).end();
  };

  return {
    as,
    upstream,
    origin,
    publicUrl,
    callbackUrl,
    store,
    keeper,
    flow: replicas[0]!.flow,
    servers: replicas[0]!.servers,
    captured,
    /** Runs the flow up to the callback, which is captured (not answered by the gateway). */
    async capture(user: string, identity = ALICE): Promise<Captured> {
      intercept = true;
      try {
        const result = await consentByHttp(await replicas[0]!.flow.connectUrl(identity, 'tracker'), { user });
        expect(result.body).toBe('intercepted');
        return captured.at(-1)!;
      } finally {
        intercept = false;
      }
    },
  };
}

/** A GET as a browser would send it (cookie optional), without following redirects. */
async function get(url: string, cookie?: string) {
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** `whoami` at the upstream with `token`: the subject the upstream sees. */
async function whoami(upstream: ProtectedUpstream, token: string): Promise<string> {
  const client = new Client({ name: 'credentials-flow-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(upstream.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    return (result.structuredContent as { sub: string }).sub;
  } finally {
    await client.close();
  }
}

function withParams(url: string, change: Record<string, string | undefined>): string {
  const u = new URL(url);
  for (const [name, value] of Object.entries(change)) {
    if (value === undefined) u.searchParams.delete(name);
    else u.searchParams.set(name, value);
  }
  return u.href;
}

function expectPage(page: { status: number; headers: Headers }, status: number) {
  expect(page.status).toBe(status);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.headers.get('referrer-policy')).toBe('no-referrer');
}

describe('connecting an upstream account (authorization code + PKCE)', () => {
  it('registers dynamically once, stores the consenting user’s token, and reuses the registration', async () => {
    const gw = await setup();
    const page = await consentByHttp(await gw.flow.connectUrl(ALICE, 'tracker'), { user: 'alice@tracker' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Connected tracker');
    expect(page.url.startsWith(gw.callbackUrl)).toBe(true);

    expect(gw.keeper.stored).toHaveLength(1);
    const [stored] = gw.keeper.stored;
    expect(stored).toMatchObject({ owner: 'client:alice', upstream: 'tracker' });
    expect(stored!.server).toMatchObject({
      registration: 'dynamic',
      resource: gw.upstream.url,
      redirectUri: gw.callbackUrl,
      authorizationServerUrl: gw.as.url,
    });
    expect(stored!.tokens.refresh_token).toBeTruthy();
    expect(await whoami(gw.upstream, stored!.tokens.access_token)).toBe('alice@tracker');

    expect(gw.as.registrations).toHaveLength(1);
    expect(gw.as.registrations[0]).toMatchObject({
      client_name: 'Switchyard',
      redirect_uris: [gw.callbackUrl],
      grant_types: expect.arrayContaining(['authorization_code', 'refresh_token']),
      token_endpoint_auth_method: 'none',
    });

    // What is sent to the authorization server: PKCE S256, the resource verbatim, state, the redirect.
    const start = await gw.flow.begin(ticketOf(await gw.flow.connectUrl(BOB, 'tracker')));
    const sent = new URL(start.url).searchParams;
    expect(Object.fromEntries(sent)).toMatchObject({
      response_type: 'code',
      client_id: stored!.server.client.client_id,
      code_challenge_method: 'S256',
      redirect_uri: gw.callbackUrl,
      resource: gw.upstream.url,
      state: start.state,
    });
    expect(sent.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(sent.get('scope')?.split(' ')).toContain('mcp');

    // Another person (through the other replica too) uses the same registration.
    const bob = await consentByHttp(await gw.flow.connectUrl(BOB, 'tracker'), { user: 'bob@tracker' });
    expect(bob.status).toBe(200);
    expect(gw.keeper.stored.map((s) => s.owner)).toEqual(['client:alice', 'client:bob']);
    expect(await whoami(gw.upstream, gw.keeper.stored[1]!.tokens.access_token)).toBe('bob@tracker');
    expect(gw.as.registrations).toHaveLength(1);
    // A replica that starts later reads it from the store.
    const later = new OAuthServerDirectory({
      upstream: () => ({ url: gw.upstream.url, user: {} }),
      publicUrl: gw.publicUrl,
      key: KEY,
      store: gw.store,
    });
    // Concurrent first callers share one discovery.
    const metadataFetches = () => gw.as.count('/.well-known/oauth-authorization-server');
    const before = metadataFetches();
    const [one, two] = await Promise.all([later.of('tracker'), later.of('tracker')]);
    expect(one).toBe(two);
    expect(metadataFetches()).toBe(before + 1);
    expect(one.client.client_id).toBe(stored!.server.client.client_id);
    expect(gw.as.registrations).toHaveLength(1);

    // credentials.key rotated (the old one in previousKeys): still the same client, sealed again under
    // the new key, so a replica holding the new key alone reads it too and nobody registers again.
    const rotatedKey = `${KEY}-rotated`;
    const directory = (key: string, previousKeys?: string[]) =>
      new OAuthServerDirectory({
        upstream: () => ({ url: gw.upstream.url, user: {} }),
        publicUrl: gw.publicUrl,
        key,
        previousKeys,
        store: gw.store,
      });
    const rotated = await directory(rotatedKey, [KEY]).of('tracker');
    expect(rotated.client.client_id).toBe(one.client.client_id);
    expect((await directory(rotatedKey).of('tracker')).client.client_id).toBe(one.client.client_id);
    expect(gw.as.registrations).toHaveLength(1);
  });

  it('uses a pre-registered client (with its secret) and registers nothing', async () => {
    const gw = await setup({
      as: (redirect) => ({
        clients: [
          { clientId: 'switchyard-gw', clientSecret: 'pre-registered-secret-71c2', redirectUris: [redirect] },
        ],
      }),
      user: { clientId: 'switchyard-gw', clientSecret: 'pre-registered-secret-71c2' },
    });
    const page = await consentByHttp(await gw.flow.connectUrl(ALICE, 'tracker'), { user: 'alice@tracker' });
    expect(page.status).toBe(200);
    const [stored] = gw.keeper.stored;
    expect(stored!.server.registration).toBe('configured');
    expect(stored!.server.client.client_id).toBe('switchyard-gw');
    expect(await whoami(gw.upstream, stored!.tokens.access_token)).toBe('alice@tracker');
    expect(gw.as.registrations).toHaveLength(0);
  });

  it('uses its Client ID Metadata Document where the server accepts one (https public URL with a path)', async () => {
    const PUBLIC = 'https://gateway.test/gw';
    const gw = await setup({ publicUrl: PUBLIC, as: () => ({ clientIdMetadataDocuments: true }) });
    // https://gateway.test is this test's HTTP server, for the authorization server and the user agent.
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const local = url.startsWith('https://gateway.test/')
        ? gw.origin + url.slice('https://gateway.test'.length)
        : input;
      return realFetch(local, init);
    });
    const document = await (await fetch(`${PUBLIC}/oauth/client.json`)).json();
    expect(document).toEqual({
      client_id: `${PUBLIC}/oauth/client.json`,
      client_name: 'Switchyard',
      redirect_uris: [`${PUBLIC}/oauth/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });

    const page = await consentByHttp(await gw.flow.connectUrl(ALICE, 'tracker'), { user: 'alice@tracker' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Connected tracker');
    const [stored] = gw.keeper.stored;
    expect(stored!.server.registration).toBe('metadata-document');
    expect(stored!.server.client.client_id).toBe(`${PUBLIC}/oauth/client.json`);
    expect(gw.as.clientMetadataFetches).toContain(`${PUBLIC}/oauth/client.json`);
    expect(gw.as.registrations).toHaveLength(0);
    expect(await whoami(gw.upstream, stored!.tokens.access_token)).toBe('alice@tracker');
  });
});

describe('refusing what is not a fresh answer to this browser’s authorization', () => {
  it('refuses a replayed callback and stores nothing more', async () => {
    const gw = await setup();
    const callback = await gw.capture('alice@tracker');
    const first = await get(callback.url, callback.cookie);
    expectPage(first, 200);
    expect(first.body).toContain('Connected tracker');
    const again = await get(callback.url, callback.cookie);
    expectPage(again, 400);
    expect(again.body).toContain('already completed or expired');
    expect(gw.keeper.stored).toHaveLength(1);
  });

  it('refuses a foreign state, one from another browser, and an expired one or link', async () => {
    const gw = await setup();
    // Foreign: no such state here.
    const foreign = await get(`${gw.callbackUrl}?code=abc&state=${'A'.repeat(43)}&iss=${gw.as.url}`);
    expectPage(foreign, 400);

    // Another browser: the state is right but the binding cookie is missing; it is spent all the same.
    const phished = await gw.capture('alice@tracker');
    const elsewhere = await get(phished.url);
    expectPage(elsewhere, 400);
    expect(elsewhere.body).toContain('started in another browser');
    expectPage(await get(phished.url, phished.cookie), 400);

    // Expired: eleven minutes after the authorization began (only Date is faked).
    const late = await gw.capture('alice@tracker');
    vi.useFakeTimers({ now: Date.now() + ELEVEN_MINUTES, toFake: ['Date'] });
    expectPage(await get(late.url, late.cookie), 400);
    vi.useRealTimers();

    const link = await gw.flow.connectUrl(ALICE, 'tracker');
    vi.useFakeTimers({ now: Date.now() + ELEVEN_MINUTES, toFake: ['Date'] });
    const expiredLink = await get(link);
    vi.useRealTimers();
    expectPage(expiredLink, 404);
    expect(gw.keeper.stored).toHaveLength(0);
  });

  it('answers garbage with a 400 or 404 page, escapes what it echoes, and spends nothing on HEAD', async () => {
    const gw = await setup();
    const valid = 'B'.repeat(43);
    for (const query of [
      '',
      '?code=abc',
      '?state=short',
      `?state=${valid}&state=${valid}&code=x`,
      `?state=${'%00'.repeat(50)}`,
      `?state=<script>alert(1)</script>&code=<b>`,
      `?code=${'x'.repeat(5000)}&state=${valid}`,
      '?error=access_denied',
    ]) {
      const page = await get(gw.callbackUrl + query);
      expectPage(page, 400);
      expect(page.body).not.toContain('<script>');
    }
    for (const ticket of ['', 'nope', 'A'.repeat(43), '..%2F..%2Fetc', '%3Cscript%3E']) {
      const page = await get(`${gw.origin}/oauth/connect/${ticket}`);
      expect(page.status).toBe(404);
      expect(page.body).not.toContain('<script>');
    }
    expect((await fetch(gw.callbackUrl, { method: 'POST' })).status).toBe(405);

    // A link previewer's HEAD does not spend the ticket; the browser's GET then does, once.
    const link = await gw.flow.connectUrl(ALICE, 'tracker');
    expect((await fetch(link, { method: 'HEAD' })).status).toBe(405);
    const first = await get(link);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')?.startsWith(`${gw.as.url}/auth?`)).toBe(true);
    expect(first.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');
    expectPage(await get(link), 404);

    // The authorization server's error text is shown (its iss checked out), escaped.
    const callback = await gw.capture('alice@tracker');
    const page = await get(
      withParams(callback.url, {
        code: undefined,
        error: 'invalid_scope',
        error_description: '<script>alert("x")</script>',
      }),
      callback.cookie,
    );
    expectPage(page, 400);
    expect(page.body).toContain('invalid_scope');
    expect(page.body).toContain('&#60;script&#62;');
    expect(page.body).not.toContain('<script>');
    expect(gw.keeper.stored).toHaveLength(0);
  });

  it('is refused by the authorization server when the code belongs to another flow (wrong PKCE verifier)', async () => {
    const gw = await setup();
    const a = await gw.capture('alice@tracker');
    const b = await gw.capture('alice@tracker');
    const swapped = withParams(b.url, { code: new URL(a.url).searchParams.get('code')! });
    const page = await get(swapped, b.cookie);
    expectPage(page, 400);
    expect(page.body).toContain('refused the authorization code (invalid_grant)');
    expect(gw.keeper.stored).toHaveLength(0);
  });

  it('says so when the person denies access', async () => {
    const gw = await setup();
    const page = await consentByHttp(await gw.flow.connectUrl(ALICE, 'tracker'), {
      user: 'alice@tracker',
      deny: true,
    });
    expect(page.status).toBe(400);
    expect(page.body).toContain('was not granted');
    expect(gw.keeper.stored).toHaveLength(0);
  });

  it('refuses an answer whose iss is not the authorization server’s (RFC 9207), never showing its text', async () => {
    const gw = await setup();
    const tokenRequests = () => gw.as.count('/token');
    const before = tokenRequests();

    const forged = await gw.capture('alice@tracker');
    const wrongIss = await get(withParams(forged.url, { iss: 'https://evil.example' }), forged.cookie);
    expectPage(wrongIss, 400);
    expect(wrongIss.body).toContain('did not come from the authorization server of tracker');

    const noIss = await gw.capture('alice@tracker');
    expectPage(await get(withParams(noIss.url, { iss: undefined }), noIss.cookie), 400);

    const mixedUp = await gw.capture('alice@tracker');
    const error = await get(
      withParams(mixedUp.url, {
        code: undefined,
        iss: 'https://evil.example',
        error: 'access_denied',
        error_description: 'EVIL-TEXT-visit-evil.example',
      }),
      mixedUp.cookie,
    );
    expectPage(error, 400);
    expect(error.body).not.toContain('EVIL-TEXT');
    expect(error.body).toContain('did not come from');

    expect(tokenRequests()).toBe(before); // no code was redeemed
    expect(gw.keeper.stored).toHaveLength(0);
  });
});

describe('when the other side fails', () => {
  it('answers 502 when the token endpoint fails, hangs or is gone, and 503 when the keeper cannot store', async () => {
    const gw = await setup({ timeoutMs: 1_000 });
    const failing = await gw.capture('alice@tracker');
    gw.as.failTokenEndpoint('error');
    const error = await get(failing.url, failing.cookie);
    expectPage(error, 502);
    expect(error.body).toContain('failed to issue a token (HTTP 500)');

    const hanging = await gw.capture('alice@tracker');
    gw.as.failTokenEndpoint('hang');
    const started = Date.now();
    const hung = await get(hanging.url, hanging.cookie);
    expectPage(hung, 502);
    expect(hung.body).toContain('did not answer in time');
    expect(Date.now() - started).toBeLessThan(5_000);

    gw.as.failTokenEndpoint(undefined);
    const unsaved = await gw.capture('alice@tracker');
    gw.keeper.failing = true;
    expectPage(await get(unsaved.url, unsaved.cookie), 503);
    gw.keeper.failing = false;

    const orphaned = await gw.capture('alice@tracker');
    await gw.as.close();
    const gone = await get(orphaned.url, orphaned.cookie);
    expectPage(gone, 502);
    expect(gw.keeper.stored).toHaveLength(0);
  });

  it('names the upstream and the step when discovery fails, and keeps the link for a retry', async () => {
    const gw = await setup();
    const unknown = await get(await gw.flow.connectUrl(ALICE, 'nowhere'));
    expectPage(unknown, 400);
    expect(unknown.body).toContain('upstream &#34;nowhere&#34;: configuration failed');

    const link = await gw.flow.connectUrl(ALICE, 'tracker');
    await gw.upstream.close();
    const down = await get(link);
    expectPage(down, 502);
    expect(down.body).toContain('upstream &#34;tracker&#34;: probe failed: unreachable');
    await expect(gw.servers.of('tracker')).rejects.toThrow(/probe failed/);
    // The link was not spent: it still leads on (to the same failure while the upstream is down).
    expectPage(await get(link), 502);
  });
});

function ticketOf(connectUrl: string): string {
  return connectUrl.slice(connectUrl.lastIndexOf('/') + 1);
}
