import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  OAuthError,
  type OAuthTokens,
  refreshAuthorization,
  startAuthorization,
} from '@modelcontextprotocol/client';
import {
  type Identity,
  type Logger,
  MemoryStore,
  openStore,
  type Store,
  silentLogger,
} from '@switchyard/core';
import { credentialOwner } from '@switchyard/core/listener';
import { Cleanup } from '@switchyard/testkit';
import { redisMissing, startRedis } from '@switchyard/testkit/process';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { CHANGES_CHANNEL, CREDENTIALS_SCOPE } from '../src/credentials/store-keys.js';
import { TokenKeeper } from '../src/credentials/token-keeper.js';
import type { StoredGrant, UpstreamOAuthServer, UpstreamOAuthServers } from '../src/credentials/types.js';
import { TokenVault } from '../src/credentials/vault.js';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/user-oauth/authorization-server.js';
import { consentByHttp } from './support/user-oauth/consent.js';

// The token keeper against a real authorization server (oidc-provider: authorization code + PKCE, rotating
// refresh tokens, RFC 8707 resources, RFC 7009 revocation): grants obtained through the real flow, refreshed
// before expiry (a test clock decides when), once however many callers race, on one replica or two over a
// real redis-server; dropped when refused; revoked on disconnect; never crossing identities; never logged.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const missingRedis = redisMissing();
if (missingRedis) console.warn(`skipping the two-replica token keeper tests: ${missingRedis}`);

const RESOURCE = 'https://tracker.example.com/mcp';
const UPSTREAM = 'tracker';
const CLIENT = { client_id: 'switchyard', client_secret: 'switchyard-client-secret' };
const KEY = 'credentials-key-for-the-keeper-tests-0123456789';

const identity = (id: string): Identity => ({ id, groups: [], anonymous: false });
/** What the vault and keeper key by: a static client's kind and id. */
const owner = (id: string): string => credentialOwner(identity(id));
const alice = identity('alice');
const bob = identity('bob');

/** Every log entry, to prove no token ever reaches one. */
const logged: string[] = [];
const recordingLogger: Logger = {
  debug: (message, fields) => logged.push(JSON.stringify([message, fields])),
  info: (message, fields) => logged.push(JSON.stringify([message, fields])),
  warn: (message, fields) => logged.push(JSON.stringify([message, fields])),
  error: (message, fields) => logged.push(JSON.stringify([message, fields])),
  child: () => recordingLogger,
};
/** Every token the tests saw, checked against the log after each test. */
const seenTokens = new Set<string>();
afterEach(() => {
  const log = logged.splice(0).join('\n');
  for (const token of seenTokens) expect(log).not.toContain(token);
  seenTokens.clear();
});

/** A clock the keeper judges expiry by: real time, plus whatever a test skips ahead. */
class TestClock {
  #skipped = 0;
  readonly now = () => Date.now() + this.#skipped;
  /** Moves the clock to `at` (ms since epoch), or not at all if it is past that already. */
  moveTo(at: number): void {
    this.#skipped = Math.max(this.#skipped, at - Date.now());
  }
}

interface Replica {
  keeper: TokenKeeper;
  vault: TokenVault;
}

interface World {
  as: AuthorizationServer;
  server: UpstreamOAuthServer;
  servers: UpstreamOAuthServers;
  clock: TestClock;
  /** Runs the authorization code flow as `user` (sign in, consent) and returns the tokens. */
  authorize(user: string): Promise<OAuthTokens>;
  /** A keeper (and its vault) over `store` (default: a new memory store). */
  replica(store?: Store): Promise<Replica>;
}

async function world(options: { accessTokenTtlSec?: number } = {}): Promise<World> {
  const callback = createServer((_req, res) => res.end('connected'));
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise((resolve) => callback.close(resolve)));
  const redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/oauth/callback`;

  const as = await startAuthorizationServer({
    clients: [
      { clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret, redirectUris: [redirectUri] },
    ],
    resources: [RESOURCE],
    accessTokenTtlSec: options.accessTokenTtlSec ?? 300,
  });
  cleanup.add(() => as.close());
  const metadata = (await discoverAuthorizationServerMetadata(as.url)) as AuthorizationServerMetadata;
  const server: UpstreamOAuthServer = {
    upstream: UPSTREAM,
    resource: RESOURCE,
    authorizationServerUrl: as.url,
    metadata,
    client: CLIENT,
    redirectUri,
    scope: 'mcp',
  };
  const servers: UpstreamOAuthServers = { of: async () => server, forget: () => {} };
  const clock = new TestClock();

  return {
    as,
    server,
    servers,
    clock,
    async authorize(user) {
      const state = randomUUID();
      const { authorizationUrl, codeVerifier } = await startAuthorization(as.url, {
        metadata,
        clientInformation: CLIENT,
        redirectUrl: redirectUri,
        scope: 'mcp',
        state,
        resource: RESOURCE,
      });
      const landed = await consentByHttp(authorizationUrl.href, { user });
      const params = new URL(landed.url).searchParams;
      expect(params.get('state')).toBe(state);
      const tokens = await exchangeAuthorization(as.url, {
        metadata,
        clientInformation: CLIENT,
        authorizationCode: params.get('code')!,
        iss: params.get('iss') ?? undefined,
        codeVerifier,
        redirectUri,
        resource: RESOURCE,
      });
      seenTokens.add(tokens.access_token);
      if (tokens.refresh_token) seenTokens.add(tokens.refresh_token);
      return tokens;
    },
    async replica(store) {
      const shared = store ?? new MemoryStore();
      if (!store) cleanup.add(() => shared.dispose());
      const vault = new TokenVault({ store: shared, key: KEY, logger: recordingLogger, now: clock.now });
      await vault.start();
      cleanup.add(() => vault.close());
      const keeper = new TokenKeeper({ vault, servers, logger: recordingLogger, now: clock.now });
      return { keeper, vault };
    },
  };
}

/** Connects `user` through `replica` (with the tokens of a new authorization unless given); the grant stored. */
async function connect(w: World, replica: Replica, user: string, tokens?: OAuthTokens): Promise<StoredGrant> {
  await replica.keeper.store(owner(user), UPSTREAM, tokens ?? (await w.authorize(user)), w.server);
  const grant = await replica.vault.get(owner(user), UPSTREAM);
  if (!grant) throw new Error(`no grant stored for ${user}`);
  return grant;
}

/** The `sub` of a JWT access token: whose it is. */
const subject = (token: string | undefined) => (token === undefined ? undefined : decodeJwt(token).sub);

/** Remembers tokens the keeper hands out, for the log check. */
function seen<T extends string | undefined>(token: T): T {
  if (token !== undefined) seenTokens.add(token);
  return token;
}

describe('TokenKeeper against a real authorization server', () => {
  it('stores a grant from the code flow and refreshes it a minute before it expires', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper, vault } = r;
    const tokens = await w.authorize('alice');
    expect(tokens.refresh_token).toBeDefined();
    const stored = await connect(w, r, 'alice', tokens);
    expect(stored).toMatchObject({
      issuer: w.as.url,
      clientId: CLIENT.client_id,
      accessToken: tokens.access_token,
    });
    expect(stored.expiresAt).toBeGreaterThan(Date.now() + 290_000);

    const tokenRequests = w.as.count('/token');
    expect(await keeper.token(alice, UPSTREAM)).toBe(tokens.access_token);
    w.clock.moveTo(stored.expiresAt! - 61_000);
    expect(await keeper.token(alice, UPSTREAM)).toBe(tokens.access_token);
    expect(w.as.count('/token')).toBe(tokenRequests);

    w.clock.moveTo(stored.expiresAt! - 59_000);
    const fresh = seen(await keeper.token(alice, UPSTREAM));
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(tokens.access_token);
    expect(subject(fresh)).toBe('alice');
    expect(decodeJwt(fresh!).aud).toBe(RESOURCE);
    expect(w.as.count('/token')).toBe(tokenRequests + 1);
    // The refresh token rotated: the vault holds the new one, the old one no longer works.
    const after = await vault.get(owner('alice'), UPSTREAM);
    seen(after?.refreshToken);
    expect(after?.accessToken).toBe(fresh);
    expect(after?.refreshToken).not.toBe(tokens.refresh_token);
    expect(await w.as.refreshTokenActive(tokens.refresh_token!)).toBe(false);
    expect(await w.as.refreshTokenActive(after!.refreshToken!)).toBe(true);
    expect(await keeper.token(alice, UPSTREAM)).toBe(fresh);
  });

  it('makes one refresh for 20 concurrent callers', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper } = r;
    const stored = await connect(w, r, 'alice');
    const before = w.as.count('/token');
    w.clock.moveTo(stored.expiresAt! - 30_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => keeper.token(alice, UPSTREAM)));
    seen(answers[0]);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).not.toBe(stored.accessToken);
    expect(w.as.count('/token')).toBe(before + 1);
  });

  it('answers a refusal of a stale token with the newer one, without refreshing', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper } = r;
    const stored = await connect(w, r, 'alice');
    w.clock.moveTo(stored.expiresAt! - 30_000);
    const fresh = seen(await keeper.token(alice, UPSTREAM));
    const before = w.as.count('/token');
    expect(await keeper.refused(alice, UPSTREAM, stored.accessToken)).toBe(fresh);
    expect(w.as.count('/token')).toBe(before);
  });

  it('refreshes once on a refusal of the current token, and drops it when the fresh one is refused too', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper, vault } = r;
    const stored = await connect(w, r, 'alice');
    const heard: [string, string, boolean][] = [];
    keeper.onChange((...change) => heard.push(change));
    const before = w.as.count('/token');

    // Ten requests refused with the same token share one refresh.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => keeper.refused(alice, UPSTREAM, stored.accessToken)),
    );
    const fresh = seen(answers[0]);
    expect(new Set(answers).size).toBe(1);
    expect(fresh).not.toBe(stored.accessToken);
    expect(w.as.count('/token')).toBe(before + 1);

    // The upstream refuses the fresh token as well (the core's retry): a refresh did not cure it.
    expect(await keeper.refused(alice, UPSTREAM, fresh!)).toBeUndefined();
    expect(await vault.get(owner('alice'), UPSTREAM)).toBeUndefined();
    expect(await keeper.token(alice, UPSTREAM)).toBeUndefined();
    expect(w.as.count('/token')).toBe(before + 1);
    expect(heard).toEqual([
      [owner('alice'), UPSTREAM, true],
      [owner('alice'), UPSTREAM, false],
    ]);
  });

  it('drops a grant whose refresh token the authorization server refuses (invalid_grant)', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper, vault } = r;
    const tokens = await w.authorize('alice');
    const stored = await connect(w, r, 'alice', { ...tokens, refresh_token: 'not-a-refresh-token' });
    w.clock.moveTo(stored.expiresAt! - 30_000);
    const before = w.as.count('/token');
    expect(await keeper.token(alice, UPSTREAM)).toBeUndefined();
    expect(w.as.count('/token')).toBe(before + 1);
    expect(await vault.get(owner('alice'), UPSTREAM)).toBeUndefined();
    expect(await vault.list(owner('alice'))).toEqual([]);
    expect(logged.join('\n')).toContain('invalid_grant');
  });

  it('keeps a valid token while the authorization server fails, and says so once it has expired', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper, vault } = r;
    const stored = await connect(w, r, 'alice');
    w.as.failTokenEndpoint('error');
    w.clock.moveTo(stored.expiresAt! - 30_000);
    expect(await keeper.token(alice, UPSTREAM)).toBe(stored.accessToken);
    w.clock.moveTo(stored.expiresAt! + 1000);
    await expect(keeper.token(alice, UPSTREAM)).rejects.toMatchObject({
      data: { reason: 'upstream_unavailable', upstream: UPSTREAM },
      message: expect.stringMatching(/server_error/),
    });
    // A refusal while it fails keeps the grant too (its refresh token may still be good).
    await expect(keeper.refused(alice, UPSTREAM, stored.accessToken)).rejects.toMatchObject({
      data: { reason: 'upstream_unavailable' },
    });
    expect((await vault.get(owner('alice'), UPSTREAM))?.accessToken).toBe(stored.accessToken);

    w.as.failTokenEndpoint(undefined);
    const fresh = seen(await keeper.token(alice, UPSTREAM));
    expect(fresh).not.toBe(stored.accessToken);
    expect(subject(fresh)).toBe('alice');
  });

  it('gives up on an authorization server that does not answer', async () => {
    const w = await world();
    const store = new MemoryStore();
    cleanup.add(() => store.dispose());
    const vault = new TokenVault({ store, key: KEY, logger: recordingLogger, now: w.clock.now });
    cleanup.add(() => vault.close());
    const keeper = new TokenKeeper({
      vault,
      servers: w.servers,
      logger: recordingLogger,
      now: w.clock.now,
      requestTimeoutMs: 300,
    });
    const r = { keeper, vault };
    const stored = await connect(w, r, 'alice');
    w.as.failTokenEndpoint('hang');
    w.clock.moveTo(stored.expiresAt! + 1000);
    await expect(keeper.token(alice, UPSTREAM)).rejects.toMatchObject({
      message: expect.stringMatching(/did not answer in time/),
    });
    expect(await vault.get(owner('alice'), UPSTREAM)).toBeDefined();
  });

  it('revokes on disconnect: the refresh token first, then the access token; the refresh token is dead', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper, vault } = r;
    const tokens = await w.authorize('alice');
    await connect(w, r, 'alice', tokens);
    const heard: [string, string, boolean][] = [];
    keeper.onChange((...change) => heard.push(change));

    expect(await keeper.disconnect(owner('alice'), UPSTREAM)).toBe(true);
    expect(w.as.revocations.map((r) => [r.token, r.tokenTypeHint, r.clientId])).toEqual([
      [tokens.refresh_token, 'refresh_token', CLIENT.client_id],
      [tokens.access_token, 'access_token', CLIENT.client_id],
    ]);
    // oidc-provider revokes refresh tokens; it cannot revoke a JWT access token (unsupported_token_type).
    expect(w.as.revocations.map((r) => r.status)).toEqual([200, 400]);
    expect(await w.as.refreshTokenActive(tokens.refresh_token!)).toBe(false);
    const reuse = refreshAuthorization(w.as.url, {
      metadata: w.server.metadata,
      clientInformation: CLIENT,
      refreshToken: tokens.refresh_token!,
      resource: RESOURCE,
    });
    await expect(reuse).rejects.toBeInstanceOf(OAuthError);
    await expect(reuse).rejects.toMatchObject({ code: 'invalid_grant' });

    expect(await vault.get(owner('alice'), UPSTREAM)).toBeUndefined();
    expect(await vault.list(owner('alice'))).toEqual([]);
    expect(await keeper.token(alice, UPSTREAM)).toBeUndefined();
    expect(heard).toEqual([[owner('alice'), UPSTREAM, false]]);
    expect(await keeper.disconnect(owner('alice'), UPSTREAM)).toBe(false);
  });

  it('disconnects even when revocation fails', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper, vault } = r;
    await connect(w, r, 'alice');
    await w.as.close();
    expect(await keeper.disconnect(owner('alice'), UPSTREAM)).toBe(true);
    expect(await vault.get(owner('alice'), UPSTREAM)).toBeUndefined();
    expect(logged.join('\n')).toMatch(/revocation failed.*unreachable/);
  });

  it('never crosses alice’s and bob’s grants, whatever the race', async () => {
    const w = await world();
    const r = await w.replica();
    const { keeper } = r;
    const a = await connect(w, r, 'alice');
    const b = await connect(w, r, 'bob');
    expect(subject(a.accessToken)).toBe('alice');
    expect(subject(b.accessToken)).toBe('bob');
    const before = w.as.count('/token');
    w.clock.moveTo(Math.max(a.expiresAt!, b.expiresAt!) - 30_000);

    const calls = Array.from({ length: 40 }, (_, i) => {
      const who = i % 2 === 0 ? alice : bob;
      const stale = who === alice ? a.accessToken : b.accessToken;
      const call = i % 4 < 2 ? keeper.token(who, UPSTREAM) : keeper.refused(who, UPSTREAM, stale);
      return call.then((token) => ({ who: who.id, token: seen(token) }));
    });
    const answers = await Promise.all(calls);
    for (const { who, token } of answers) expect(subject(token)).toBe(who);
    expect(new Set(answers.filter((x) => x.who === 'alice').map((x) => x.token)).size).toBe(1);
    expect(new Set(answers.filter((x) => x.who === 'bob').map((x) => x.token)).size).toBe(1);
    expect(w.as.count('/token')).toBe(before + 2);
    expect(subject(await keeper.token(alice, UPSTREAM))).toBe('alice');
    expect(subject(await keeper.token(bob, UPSTREAM))).toBe('bob');
    expect(await keeper.token(identity('carol'), UPSTREAM)).toBeUndefined();
  });

  describe.skipIf(missingRedis)('two replicas over one redis-server', () => {
    async function redisReplicas(w: World) {
      const redis = await startRedis();
      cleanup.add(() => redis.stop());
      const open = async () => {
        const store = await openStore({ redis: { url: redis.url } }, silentLogger);
        cleanup.add(() => store.dispose());
        return store;
      };
      const [storeA, storeB] = [await open(), await open()];
      const one = await w.replica(storeA);
      const two = await w.replica(storeB);
      // Both subscriptions to the change feed are in place before anything changes.
      const channel = `switchyard:${CREDENTIALS_SCOPE}${CHANGES_CHANNEL}`;
      const client = storeA.native!.client as { pubsub(...args: string[]): Promise<unknown[]> };
      const deadline = Date.now() + 10_000;
      while (Number((await client.pubsub('NUMSUB', channel))[1]) < 2) {
        if (Date.now() > deadline) throw new Error('the replicas did not subscribe to the change feed');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return [one, two] as const;
    }

    it('makes one refresh when both race, and both get the new token', async () => {
      const w = await world();
      const [one, two] = await redisReplicas(w);
      const heardOnTwo: [string, string, boolean][] = [];
      const connected = new Promise<void>((resolve) =>
        two.keeper.onChange((...change) => {
          heardOnTwo.push(change);
          resolve();
        }),
      );
      const stored = await connect(w, one, 'alice');
      await connected;
      expect(heardOnTwo).toEqual([[owner('alice'), UPSTREAM, true]]);
      expect(await two.keeper.token(alice, UPSTREAM)).toBe(stored.accessToken);

      const before = w.as.count('/token');
      w.clock.moveTo(stored.expiresAt! - 30_000);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).keeper.token(alice, UPSTREAM)),
      );
      seen(answers[0]);
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).not.toBe(stored.accessToken);
      expect(subject(answers[0])).toBe('alice');
      expect(w.as.count('/token')).toBe(before + 1);
      // Had both refreshed, the rotated refresh token's reuse would have revoked the whole grant.
      const kept = await two.vault.get(owner('alice'), UPSTREAM);
      seen(kept?.refreshToken);
      expect(await w.as.refreshTokenActive(kept!.refreshToken!)).toBe(true);
    });

    it('keeps alice and bob apart across replicas, and a disconnect on one is seen by the other', async () => {
      const w = await world();
      const [one, two] = await redisReplicas(w);
      const a = await connect(w, one, 'alice');
      const b = await connect(w, two, 'bob');
      const before = w.as.count('/token');
      w.clock.moveTo(Math.max(a.expiresAt!, b.expiresAt!) - 30_000);
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => {
          const who = i % 2 === 0 ? alice : bob;
          const replica = i % 3 === 0 ? one : two;
          return replica.keeper.token(who, UPSTREAM).then((token) => ({ who: who.id, token: seen(token) }));
        }),
      );
      for (const { who, token } of answers) expect(subject(token)).toBe(who);
      expect(w.as.count('/token')).toBe(before + 2);

      const disconnected = new Promise<void>((resolve) =>
        one.keeper.onChange((id, upstream, isConnected) => {
          if (id === owner('bob') && upstream === UPSTREAM && !isConnected) resolve();
        }),
      );
      expect(await two.keeper.disconnect(owner('bob'), UPSTREAM)).toBe(true);
      await disconnected;
      expect(await one.keeper.token(bob, UPSTREAM)).toBeUndefined();
      expect(subject(await one.keeper.token(alice, UPSTREAM))).toBe('alice');
      expect(await one.vault.list(owner('alice'))).toEqual([UPSTREAM]);
      expect(await two.vault.list(owner('bob'))).toEqual([]);
    });
  });
});
