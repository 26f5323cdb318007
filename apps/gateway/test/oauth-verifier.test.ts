import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Identity } from '@switchyard/core';
import { ClientDirectory, subjectTokenOf } from '@switchyard/core/listener';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { type AuthOutcome, createAuthenticator } from '../src/auth/authenticator.js';
import { ProtectedResource } from '../src/auth/protected-resource.js';
import { type OAuthConfig, oauthSchema } from '../src/config/auth-schema.js';
import { parseConfig } from '../src/config/load.js';
import { Cleanup, eventually, freePort } from './support/harness.js';

// The OAuth resource server in-process: jose-minted tokens against a tiny local issuer (metadata + JWKS
// on 127.0.0.1), through the same Authenticator the listeners use.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const RESOURCE = 'https://mcp.example.com/mcp';
const quiet = createLogger({ level: 'error' });

interface Key {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(alg = 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A minimal issuer: RFC 8414 metadata at `metadataPath` and a JWKS whose keys a test can change. */
async function localIssuer(
  options: { port?: number; path?: string; metadataPath?: string; claimIssuer?: string } = {},
) {
  const key = await newKey();
  const state = { published: [key.jwk], jwksFetches: 0 };
  let base = '';
  const server: Server = createServer((req, res) => {
    const issuer = `${base}${options.path ?? ''}`;
    if (req.url === (options.metadataPath ?? '/.well-known/oauth-authorization-server')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: options.claimIssuer ?? issuer, jwks_uri: `${base}/jwks` }));
    } else if (req.url === '/jwks') {
      state.jwksFetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: state.published }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanup.add(
    () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  );
  const url = `${base}${options.path ?? ''}`;
  const mint = (claims: JWTPayload, signer: Key = key, header: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: url,
      sub: 'alice',
      aud: RESOURCE,
      scope: 'mcp',
      iat: now,
      exp: now + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'at+jwt', ...header })
      .sign(signer.privateKey);
  };
  return { url, base, key, state, mint };
}

function authenticator(
  oauth: Partial<OAuthConfig> & { issuer: string },
  extra: { clients?: ClientDirectory; anonymous?: boolean } = {},
) {
  const config = oauthSchema.parse({
    resource: RESOURCE,
    groupsClaim: 'groups',
    scopes: { required: ['mcp'], groups: { 'mcp:admin': 'admins', 'mcp:ops': ['ops', 'platform'] } },
    jwksCooldownMs: 0,
    ...oauth,
  });
  const auth = createAuthenticator({
    clients: extra.clients ?? new ClientDirectory(),
    anonymousAllowed: extra.anonymous ?? false,
    oauth: config,
    logger: quiet,
  });
  cleanup.add(() => auth.close());
  return auth;
}

function refused(outcome: AuthOutcome) {
  if (outcome.ok) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.identity)}`);
  return outcome;
}

function accepted(outcome: AuthOutcome): Identity {
  if (!outcome.ok) throw new Error(`expected an identity, got ${outcome.status} ${outcome.error.message}`);
  return outcome.identity;
}

describe('access token validation', () => {
  it('turns a valid token into an identity with groups from its claim and its scopes, keeping the token beside it', async () => {
    const issuer = await localIssuer();
    const auth = authenticator({ issuer: issuer.url });
    const token = await issuer.mint({ groups: ['readers', 'ops'], scope: 'mcp mcp:admin mcp:ops' });
    const outcome = await auth.authenticate(`Bearer ${token}`);
    const identity = accepted(outcome);
    expect(identity).toEqual({
      id: 'alice',
      groups: ['readers', 'ops', 'admins', 'platform'],
      anonymous: false,
    });
    expect(subjectTokenOf(identity)).toBe(token);
    expect(JSON.stringify(identity)).not.toContain(token);
    expect(outcome.ok && outcome.expiresAt).toBeGreaterThan(Date.now());
    // `scp` (array) is read too, and the client id may come from another claim.
    const other = authenticator({ issuer: issuer.url, clientClaim: 'client_id' });
    const scp = await issuer.mint({ scope: undefined, scp: ['mcp'], client_id: 'svc-1' });
    expect(accepted(await other.authenticate(`Bearer ${scp}`))).toMatchObject({ id: 'svc-1', groups: [] });
  });

  it('maps no groups from scopes named like Object.prototype members', async () => {
    const issuer = await localIssuer();
    const auth = authenticator({ issuer: issuer.url });
    const token = await issuer.mint({ scope: 'mcp constructor toString __proto__ hasOwnProperty mcp:admin' });
    expect(accepted(await auth.authenticate(`Bearer ${token}`))).toEqual({
      id: 'alice',
      groups: ['admins'],
      anonymous: false,
    });
  });

  it('accepts its audience among several, and with or without a trailing slash', async () => {
    const issuer = await localIssuer();
    const auth = authenticator({ issuer: issuer.url });
    accepted(
      await auth.authenticate(`Bearer ${await issuer.mint({ aud: ['https://other.example', RESOURCE] })}`),
    );
    const root = authenticator({ issuer: issuer.url, resource: 'https://mcp.example.com' });
    accepted(await root.authenticate(`Bearer ${await issuer.mint({ aud: 'https://mcp.example.com/' })}`));
  });

  it('refuses with 401 invalid_token, saying why and never echoing the token', async () => {
    const issuer = await localIssuer();
    const auth = authenticator({ issuer: issuer.url, algorithms: ['ES256'] });
    const now = Math.floor(Date.now() / 1000);
    const hmac = new TextEncoder().encode('a-shared-secret-that-is-long-enough!');
    // An EdDSA key the issuer publishes: only the allow-list refuses its tokens.
    const ed = await newKey('EdDSA');
    issuer.state.published.push(ed.jwk);
    const cases: [string, string | Promise<string>][] = [
      ['another resource', issuer.mint({ aud: 'https://other.example/mcp' })],
      ['expired', issuer.mint({ iat: now - 600, exp: now - 120 })],
      ['not valid yet', issuer.mint({ nbf: now + 600 })],
      ['not issued by', issuer.mint({ iss: 'https://evil.example' })],
      ['key the issuer does not publish', issuer.mint({}, await newKey())],
      [
        'signature does not verify',
        issuer.mint({}, { ...issuer.key, privateKey: (await newKey()).privateKey }),
      ],
      ['algorithm', issuer.mint({}, ed)],
      [
        'algorithm',
        new SignJWT({ iss: issuer.url, aud: RESOURCE, sub: 'x', exp: now + 60 })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(hmac),
      ],
      ["no 'sub' claim", issuer.mint({ sub: undefined })],
      [
        'no expiry',
        new SignJWT({ iss: issuer.url, aud: RESOURCE, sub: 'x', scope: 'mcp' })
          .setProtectedHeader({ alg: 'ES256', kid: issuer.key.kid })
          .sign(issuer.key.privateKey),
      ],
      ['neither a configured client token nor a valid JWT', 'opaque-token-1234'],
    ];
    for (const [why, pending] of cases) {
      const token = await pending;
      const answer = refused(await auth.authenticate(`Bearer ${token}`));
      expect(answer.status, why).toBe(401);
      expect(answer.error.message, why).toContain(why);
      const challenge = answer.headers['WWW-Authenticate'];
      expect(challenge).toMatch(
        /^Bearer error="invalid_token", error_description="[^"]*", scope="mcp", resource_metadata="https:\/\/mcp\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"$/,
      );
      expect(JSON.stringify(answer)).not.toContain(token);
    }
  });

  it('allows the configured clock skew on exp', async () => {
    const issuer = await localIssuer();
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.mint({ iat: now - 600, exp: now - 10 });
    accepted(await authenticator({ issuer: issuer.url }).authenticate(`Bearer ${token}`));
    refused(
      await authenticator({ issuer: issuer.url, clockToleranceSec: 0 }).authenticate(`Bearer ${token}`),
    );
  });

  it('answers 403 insufficient_scope to a valid token without a required scope', async () => {
    const issuer = await localIssuer();
    const answer = refused(
      await authenticator({ issuer: issuer.url }).authenticate(
        `Bearer ${await issuer.mint({ scope: 'other' })}`,
      ),
    );
    expect(answer.status).toBe(403);
    expect(answer.reason).toBe('insufficient_scope');
    expect(answer.headers['WWW-Authenticate']).toMatch(/^Bearer error="insufficient_scope".*scope="mcp"/);
  });

  it('challenges a tokenless request without an error code, unless anonymous callers are allowed', async () => {
    const issuer = await localIssuer();
    const answer = refused(await authenticator({ issuer: issuer.url }).authenticate(undefined));
    expect(answer.status).toBe(401);
    expect(answer.headers['WWW-Authenticate']).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"',
    );
    const open = authenticator(
      { issuer: issuer.url },
      { anonymous: true, clients: new ClientDirectory({ anonymous: 'guest' }) },
    );
    expect(accepted(await open.authenticate(undefined))).toEqual({
      id: 'guest',
      groups: [],
      anonymous: true,
    });
    expect(refused(await open.authenticate('Bearer wrong')).status).toBe(401);
  });

  it('keeps static client tokens working beside OAuth', async () => {
    const issuer = await localIssuer();
    const clients = new ClientDirectory({
      clients: { ops: { token: 'ops-static-token', groups: ['platform'] } },
    });
    const auth = authenticator({ issuer: issuer.url }, { clients });
    const ops = accepted(await auth.authenticate('Bearer ops-static-token'));
    expect(ops).toEqual({ id: 'ops', groups: ['platform'], anonymous: false });
    expect(subjectTokenOf(ops)).toBeUndefined();
    accepted(await auth.authenticate(`Bearer ${await issuer.mint({})}`));
    expect(refused(await auth.authenticate('Basic b3BzOng=')).error.message).toMatch(/malformed/);
  });
});

describe('issuer keys', () => {
  it('refetches the JWKS for an unknown key id, but not within the cool-down', async () => {
    const issuer = await localIssuer();
    const rotated = await newKey();
    const eager = authenticator({ issuer: issuer.url });
    accepted(await eager.authenticate(`Bearer ${await issuer.mint({})}`));
    const token = await issuer.mint({}, rotated);
    expect(refused(await eager.authenticate(`Bearer ${token}`)).status).toBe(401);
    issuer.state.published.unshift(rotated.jwk);
    accepted(await eager.authenticate(`Bearer ${token}`));

    const patient = authenticator({ issuer: issuer.url, jwksCooldownMs: 60_000 });
    accepted(await patient.authenticate(`Bearer ${await issuer.mint({})}`));
    const fetches = issuer.state.jwksFetches;
    const later = await newKey();
    issuer.state.published.unshift(later.jwk);
    const answer = refused(await patient.authenticate(`Bearer ${await issuer.mint({}, later)}`));
    expect(answer.error.message).toMatch(/key the issuer does not publish/);
    expect(issuer.state.jwksFetches).toBe(fetches);
  });

  it('answers 503 with Retry-After while the issuer is unreachable, and recovers when it answers', async () => {
    const port = await freePort();
    const auth = authenticator({ issuer: `http://127.0.0.1:${port}` });
    const down = refused(await auth.authenticate('Bearer some.jwt.token'));
    expect(down.status).toBe(503);
    expect(Number(down.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(down.error).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/issuer cannot be reached.*ECONNREFUSED/),
      data: { reason: 'issuer_unavailable' },
    });
    const issuer = await localIssuer({ port });
    const token = await issuer.mint({});
    await eventually(
      async () => (await auth.authenticate(`Bearer ${token}`)).ok,
      'discovery to succeed',
      5_000,
    );
  });

  it('answers 503 when the JWKS cannot be fetched', async () => {
    const port = await freePort();
    const issuer = await localIssuer();
    const auth = authenticator({ issuer: issuer.url, jwksUri: `http://127.0.0.1:${port}/jwks` });
    const answer = refused(await auth.authenticate(`Bearer ${await issuer.mint({})}`));
    expect(answer.status).toBe(503);
    expect(answer.error.message).toMatch(/cannot fetch the keys/);
  });

  it('discovers an issuer with a path through OpenID discovery, and refuses metadata naming another issuer', async () => {
    const realm = await localIssuer({
      path: '/realms/eng',
      metadataPath: '/realms/eng/.well-known/openid-configuration',
    });
    accepted(await authenticator({ issuer: realm.url }).authenticate(`Bearer ${await realm.mint({})}`));
    const liar = await localIssuer({ claimIssuer: 'https://elsewhere.example' });
    const answer = refused(
      await authenticator({ issuer: liar.url }).authenticate(`Bearer ${await liar.mint({})}`),
    );
    expect(answer.status).toBe(503);
    expect(answer.error.message).toMatch(/names issuer https:\/\/elsewhere\.example/);
  });
});

describe('protected resource metadata', () => {
  it('serves RFC 9728 metadata at the path-aware and root well-known URIs', async () => {
    const metadata = new ProtectedResource(
      oauthSchema.parse({
        issuer: 'https://idp.example.com',
        resource: RESOURCE,
        scopes: { required: ['mcp'], groups: { 'mcp:admin': 'admins' } },
      }),
    );
    expect(metadata.metadataUrl).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    const server = createServer((req, res) => {
      if (!metadata.serve(req, res, '/gateway')) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.add(
      () =>
        new Promise((resolve) => {
          server.close(resolve);
          server.closeAllConnections();
        }),
    );
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const document = {
      resource: RESOURCE,
      authorization_servers: ['https://idp.example.com'],
      scopes_supported: ['mcp', 'mcp:admin'],
      bearer_methods_supported: ['header'],
    };
    for (const path of ['/mcp', '', '/gateway', '/mcp/']) {
      const res = await fetch(`${base}/.well-known/oauth-protected-resource${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toMatchObject(document);
    }
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
    expect((await fetch(`${base}/.well-known/oauth-protected-resource`, { method: 'OPTIONS' })).status).toBe(
      204,
    );
    const post = await fetch(`${base}/.well-known/oauth-protected-resource`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('auth.oauth config', () => {
  const parse = (oauth: unknown) =>
    parseConfig({ mcpServers: {}, auth: { oauth } }, { source: 'test.json', baseDir: '/', env: {} });

  it('fills in the defaults', () => {
    expect(parse({ issuer: 'https://idp.example.com', resource: RESOURCE }).auth?.oauth).toEqual({
      issuer: 'https://idp.example.com',
      resource: RESOURCE,
      clientClaim: 'sub',
      scopes: { required: [], groups: {} },
      algorithms: [
        'RS256',
        'RS384',
        'RS512',
        'PS256',
        'PS384',
        'PS512',
        'ES256',
        'ES384',
        'ES512',
        'EdDSA',
        'Ed25519',
      ],
      clockToleranceSec: 30,
      jwksCooldownMs: 30_000,
    });
  });

  it('refuses plain http off loopback, symmetric algorithms and unknown keys, naming the JSON path', () => {
    const issues = (oauth: unknown) => {
      try {
        parse(oauth);
      } catch (error) {
        return (error as { issues: { path: string; message: string }[] }).issues;
      }
      throw new Error('expected a ConfigError');
    };
    expect(issues({ issuer: 'http://idp.example.com', resource: RESOURCE })).toEqual([
      { path: '$.auth.oauth.issuer', message: expect.stringMatching(/https/) },
    ]);
    expect(issues({ issuer: 'https://idp.example.com', resource: `${RESOURCE}#x` })[0]?.path).toBe(
      '$.auth.oauth.resource',
    );
    expect(
      issues({ issuer: 'https://idp.example.com', resource: RESOURCE, algorithms: ['HS256'] })[0],
    ).toMatchObject({
      path: '$.auth.oauth.algorithms[0]',
      message: expect.stringMatching(/asymmetric/),
    });
    expect(
      issues({ issuer: 'https://idp.example.com', resource: RESOURCE, audience: 'x' })[0]?.message,
    ).toMatch(/unknown key/);
    expect(issues({ resource: RESOURCE })[0]?.path).toBe('$.auth.oauth.issuer');
  });
});
