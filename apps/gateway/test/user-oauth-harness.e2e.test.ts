import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  auth,
  Client,
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  refreshAuthorization,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  startAuthorization,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser } from './support/browser.js';
import { Cleanup, eventually } from './support/harness.js';
import {
  type AuthorizationServerOptions,
  startAuthorizationServer,
} from './support/user-oauth/authorization-server.js';
import { type ConsentResult, consentByBrowser, consentByHttp } from './support/user-oauth/consent.js';
import { startProtectedUpstream } from './support/user-oauth/protected-upstream.js';

// Self-test of the per-user OAuth harness (./support/user-oauth): the official SDK's OAuth client
// (discovery, dynamic registration, PKCE, resource indicators, refresh) against the test authorization
// server and the protected upstream, with login and consent driven by HTTP and by Chromium.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function authorizationServer(options: AuthorizationServerOptions = {}) {
  const as = await startAuthorizationServer(options);
  cleanup.add(() => as.close());
  return as;
}

async function upstreamOf(issuer: string) {
  const upstream = await startProtectedUpstream({ issuer });
  cleanup.add(() => upstream.close());
  return upstream;
}

/** A redirect_uri that answers 200 `callback` (and a Client ID Metadata Document at /client.json). */
async function callbackServer(clientDocument?: (base: string) => object) {
  const server = createServer((req, res) => {
    req.resume();
    if (req.url === '/client.json' && clientDocument) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(clientDocument(base)));
    } else res.writeHead(200, { 'content-type': 'text/plain' }).end('callback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanup.add(
    () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  );
  return { redirectUri: `${base}/callback`, base };
}

/** The SDK's OAuthClientProvider, in memory: a client that registers itself unless given `client`. */
class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  #client?: StoredOAuthClientInformation;
  #tokens?: StoredOAuthTokens;
  #verifier = '';
  #discovery?: OAuthDiscoveryState;

  constructor(
    readonly redirectUrl: string,
    client?: StoredOAuthClientInformation,
  ) {
    this.#client = client;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'harness self-test',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.#client?.client_secret ? 'client_secret_basic' : 'none',
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
}

type Consent = (authorizationUrl: string) => Promise<ConsentResult>;

/**
 * Connects an SDK client the way an app does: the first connect is refused (401) and sends the user to
 * the authorization URL, `consent` completes it up to the redirect_uri, `finishAuth` redeems the code,
 * and a second connect succeeds.
 */
async function connectWithOAuth(url: string, provider: MemoryOAuthProvider, consent: Consent) {
  const refused = new Client({ name: 'self-test', version: '1.0.0' });
  await expect(
    refused.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  const callback = await consent(provider.authorizationUrl!.href);
  expect(callback.body).toBe('callback');
  const params = new URL(callback.url).searchParams;
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await transport.finishAuth(params);
  const client = new Client({ name: 'self-test', version: '1.0.0' });
  await client.connect(transport);
  cleanup.add(() => client.close());
  return { client, params };
}

const whoami = async (client: Client) =>
  ((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent as { sub: string }).sub;

describe('user OAuth harness, driven by the official SDK client', () => {
  it('dynamic registration, PKCE S256, a resource indicator and consent by HTTP as alice', async () => {
    const as = await authorizationServer();
    const upstream = await upstreamOf(as.url);
    const { redirectUri } = await callbackServer();
    const provider = new MemoryOAuthProvider(redirectUri);

    // Without a token: the SDK's challenge, naming the RFC 9728 metadata, which names the issuer.
    const challenge = await fetch(upstream.url, { method: 'POST', body: '{}' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toContain(
      `resource_metadata="${upstream.resourceMetadataUrl}"`,
    );
    expect(await (await fetch(upstream.resourceMetadataUrl)).json()).toMatchObject({
      resource: upstream.url,
      authorization_servers: [as.url],
    });

    const { client, params } = await connectWithOAuth(upstream.url, provider, (url) =>
      consentByHttp(url, { user: 'alice' }),
    );
    expect(await whoami(client)).toBe('alice');

    const request = provider.authorizationUrl!.searchParams;
    expect(request.get('code_challenge_method')).toBe('S256');
    expect(request.get('resource')).toBe(upstream.url);
    expect(params.get('iss')).toBe(as.url); // RFC 9207
    expect(as.registrations).toHaveLength(1);
    expect(as.registrations[0]).toMatchObject({ token_endpoint_auth_method: 'none' });
    const token = provider.tokens()!;
    expect(token.refresh_token).toBeTruthy();
    expect(decodeJwt(token.access_token)).toMatchObject({ iss: as.url, aud: upstream.url, sub: 'alice' });
    const refused = upstream.seen.filter((s) => !s.accepted);
    expect(refused.map((s) => s.method)).toEqual([undefined, 'initialize']); // the raw POST, the SDK's 1st try

    // The SDK client speaks 2025 (sessions) unless pinned; pinned to 2026-07-28 it reuses the tokens.
    const modern = new Client(
      { name: 'self-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(upstream.url), { authProvider: provider }),
    );
    cleanup.add(() => modern.close());
    expect(await whoami(modern)).toBe('alice');
    expect(new Set(upstream.seen.map((s) => s.era))).toEqual(new Set(['legacy', 'modern']));
    expect(upstream.seen.filter((s) => s.accepted).every((s) => s.sub === 'alice')).toBe(true);
  });

  it('a pre-registered confidential client; a denied consent reaches the redirect_uri as access_denied', async () => {
    const { redirectUri } = await callbackServer();
    const as = await authorizationServer({
      clients: [{ clientId: 'pre-registered', clientSecret: 'pre-secret', redirectUris: [redirectUri] }],
    });
    const upstream = await upstreamOf(as.url);
    const registered = { client_id: 'pre-registered', client_secret: 'pre-secret', issuer: as.url };

    const denied = new MemoryOAuthProvider(redirectUri, registered);
    await expect(auth(denied, { serverUrl: upstream.url })).resolves.toBe('REDIRECT');
    const refusal = await consentByHttp(denied.authorizationUrl!.href, { user: 'carol', deny: true });
    expect(Object.fromEntries(new URL(refusal.url).searchParams)).toMatchObject({
      error: 'access_denied',
      iss: as.url,
    });

    const provider = new MemoryOAuthProvider(redirectUri, registered);
    const { client } = await connectWithOAuth(upstream.url, provider, (url) =>
      consentByHttp(url, { user: 'carol' }),
    );
    expect(await whoami(client)).toBe('carol');
    expect(as.count('/reg')).toBe(0);
    expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({ client_id: 'pre-registered' });
  });

  it('an expired access token is refreshed by the SDK (one /token call) and the refresh token rotates', async () => {
    const as = await authorizationServer({ accessTokenTtlSec: 2 });
    const upstream = await upstreamOf(as.url);
    const { redirectUri } = await callbackServer();
    const provider = new MemoryOAuthProvider(redirectUri);
    const { client } = await connectWithOAuth(upstream.url, provider, (url) =>
      consentByHttp(url, { user: 'alice' }),
    );
    expect(await whoami(client)).toBe('alice');
    const first = provider.tokens()!;
    expect(as.count('/token')).toBe(1);

    const { exp } = decodeJwt(first.access_token);
    await eventually(() => Date.now() > exp! * 1000, 'the access token to expire', 5000);
    expect(await whoami(client)).toBe('alice');

    const second = provider.tokens()!;
    expect(as.count('/token')).toBe(2);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await as.refreshTokenActive(first.refresh_token!)).toBe(false);
    expect(await as.refreshTokenActive(second.refresh_token!)).toBe(true);
    expect(upstream.seen.filter((s) => !s.accepted && s.token === first.access_token)).toHaveLength(1);
  });

  it.skipIf(!CHROMIUM)('consent in Chromium as bob', async () => {
    const as = await authorizationServer();
    const upstream = await upstreamOf(as.url);
    const { redirectUri } = await callbackServer();
    const browser = await launchBrowser(cleanup);
    const provider = new MemoryOAuthProvider(redirectUri);
    const { client } = await connectWithOAuth(upstream.url, provider, (url) =>
      consentByBrowser(browser, url, { user: 'bob' }),
    );
    expect(await whoami(client)).toBe('bob');
  });

  it('revocation: a revoked refresh token cannot be used; JWT access tokens cannot be revoked', async () => {
    const as = await authorizationServer();
    const upstream = await upstreamOf(as.url);
    const { redirectUri } = await callbackServer();
    const provider = new MemoryOAuthProvider(redirectUri);
    await connectWithOAuth(upstream.url, provider, (url) => consentByHttp(url, { user: 'alice' }));
    const { access_token, refresh_token } = provider.tokens()!;
    const clientId = provider.clientInformation()!.client_id;

    const revoke = (token: string) =>
      fetch(as.revocationEndpoint, {
        method: 'POST',
        body: new URLSearchParams({ token, client_id: clientId }),
      });
    expect((await revoke(refresh_token!)).status).toBe(200);
    expect((await revoke(access_token)).status).toBe(400); // unsupported_token_type
    expect(as.revocations.map((r) => r.status)).toEqual([200, 400]);
    expect(await as.refreshTokenActive(refresh_token!)).toBe(false);

    const metadata = await discoverAuthorizationServerMetadata(as.url);
    const clientInformation = provider.clientInformation() as OAuthClientInformationMixed;
    await expect(
      refreshAuthorization(as.url, {
        metadata,
        clientInformation,
        refreshToken: refresh_token!,
        resource: upstream.url,
      }),
    ).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('a Client ID Metadata Document at an http://127.0.0.1 URL is the client', async () => {
    const clientDocument = (base: string) => ({
      client_id: `${base}/client.json`,
      client_name: 'metadata document client',
      redirect_uris: [`${base}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const { redirectUri, base } = await callbackServer(clientDocument);
    const as = await authorizationServer({ clientIdMetadataDocuments: true });
    const upstream = await upstreamOf(as.url);
    const metadata = await discoverAuthorizationServerMetadata(as.url);
    expect(metadata).toMatchObject({
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
    });

    const clientInformation = { client_id: `${base}/client.json` };
    const { authorizationUrl, codeVerifier } = await startAuthorization(as.url, {
      metadata,
      clientInformation,
      redirectUrl: redirectUri,
      scope: 'mcp',
      resource: upstream.url,
    });
    const callback = await consentByHttp(authorizationUrl.href, { user: 'dave' });
    const tokens = await exchangeAuthorization(as.url, {
      metadata,
      clientInformation,
      authorizationCode: new URL(callback.url).searchParams.get('code')!,
      iss: new URL(callback.url).searchParams.get('iss')!,
      codeVerifier,
      redirectUri,
      resource: upstream.url,
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'dave', aud: upstream.url });
    expect(as.clientMetadataFetches.length).toBeGreaterThan(0);
    expect(as.registrations).toHaveLength(0);
  });
});
