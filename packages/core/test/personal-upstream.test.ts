import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { Identity } from '../src/context.js';
import { openSession } from '../src/downstream/session.js';
import type { Gateway } from '../src/gateway.js';
import { attachSubjectToken } from '../src/identity-credential.js';
import { credentialOwner } from '../src/identity-kind.js';
import type { PersonalCredentials } from '../src/upstream/auth/personal-credentials.js';
import {
  Cleanup,
  connect,
  eventually,
  httpUpstream,
  startGateway,
  upstreamConfig,
} from './support/gateway.js';

// A personal upstream (`auth.user`, DESIGN §14) is called with each person's own token over that person's
// own connection; a person without one is asked to connect. The OAuth side (vault, flow, refresh) is the
// gateway app's and is covered end to end there; here the credentials are a map, the upstream is a real
// testkit server over HTTP that admits only the tokens it was given.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const alice: Identity = { id: 'alice', groups: [], anonymous: false };
const bob: Identity = { id: 'bob', groups: [], anonymous: false };

/** Tokens in a map by owner (kind and id): `refused` moves to the next one queued for that person, else drops theirs. */
class MapCredentials implements PersonalCredentials {
  readonly tokens = new Map<string, string>();
  readonly next = new Map<string, string>();
  readonly listeners = new Set<(id: string, upstream: string, connected: boolean) => void>();
  urls = 0;
  async token(identity: Identity): Promise<string | undefined> {
    return this.tokens.get(credentialOwner(identity));
  }
  async refused(identity: Identity, _upstream: string, token: string): Promise<string | undefined> {
    const owner = credentialOwner(identity);
    const current = this.tokens.get(owner);
    if (current !== undefined && current !== token) return current;
    const fresh = this.next.get(owner);
    this.next.delete(owner);
    if (fresh === undefined) this.tokens.delete(owner);
    else this.tokens.set(owner, fresh);
    return fresh;
  }
  async connectUrl(identity: Identity, upstream: string): Promise<string> {
    this.urls += 1;
    return `https://gateway.example/oauth/connect/${identity.id}-${upstream}-${this.urls}`;
  }
  onChange(listener: (id: string, upstream: string, connected: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  connect(identity: Identity, token: string): void {
    this.tokens.set(credentialOwner(identity), token);
    for (const listener of this.listeners) listener(credentialOwner(identity), 'me', true);
  }
}

/** A testkit upstream that admits only `valid` tokens, recording the bearer of every request. */
async function protectedUpstream(valid: Set<string>) {
  const server = new TestServer({ name: 'me', behaviorTools: true });
  cleanup.add(() => server.close());
  const seen: string[] = [];
  const http = await server.listenHttp({
    authorize: (req) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      seen.push(token);
      return valid.has(token);
    },
  });
  return { url: http.url, seen };
}

async function gatewayWith(credentials: MapCredentials, valid: Set<string>) {
  const personal = await protectedUpstream(valid);
  const other = await httpUpstream(cleanup, { name: 'other', tools: 2 });
  const config = upstreamConfig('me', personal.url);
  if (config.transport.kind === 'http') config.transport.auth = { kind: 'user' };
  const gateway = await startGateway(cleanup, [config, upstreamConfig('other', other.url)], {
    personalCredentials: credentials,
  });
  return { gateway, personal };
}

/** A legacy in-memory client declaring URL-mode elicitation. */
async function urlCapableClient(gateway: Gateway, identity: Identity): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = openSession(gateway, { transport: 'memory', identity });
  await session.connect(serverSide);
  const client = new Client(
    { name: 'url-capable', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  await client.connect(clientSide);
  cleanup.add(async () => {
    await client.close();
    await session.close();
  });
  return client;
}

const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as { code: number; message: string; data: Record<string, unknown> },
  );
const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

describe('personal upstreams (auth.user)', () => {
  it("calls with each person's own token over their own connection, and asks those without one to connect", async () => {
    const credentials = new MapCredentials();
    credentials.tokens.set(credentialOwner(alice), 'alice-token');
    const { gateway, personal } = await gatewayWith(credentials, new Set(['alice-token', 'bob-token']));
    expect(gateway.status().find((s) => s.name === 'me')?.state).toBe('personal');

    const aliceClient = await connect(cleanup, gateway, alice);
    expect(await toolNames(aliceClient)).toContain('me__echo');
    const echoed = await aliceClient.callTool({ name: 'me__echo', arguments: { text: 'hi' } });
    expect(echoed.isError).not.toBe(true);
    // Nothing but alice's token reached the upstream, and it saw no request without one.
    expect(new Set(personal.seen)).toEqual(new Set(['alice-token']));

    const bobClient = await connect(cleanup, gateway, bob);
    const listed = await toolNames(bobClient);
    expect(listed.some((n) => n.startsWith('me__'))).toBe(false);
    expect(listed).toContain('other__tool_1');
    const asked = await failure(bobClient.callTool({ name: 'me__echo', arguments: { text: 'hi' } }));
    expect(asked.code).toBe(-32016);
    expect(asked.data).toMatchObject({ reason: 'authorization_required', upstream: 'me' });
    expect(asked.data.url).toMatch(/^https:\/\/gateway\.example\/oauth\/connect\/bob-me-/);
    expect(new Set(personal.seen)).toEqual(new Set(['alice-token']));

    // Bob connects: his session hears the list changed, and his calls carry his own token.
    let changed = false;
    bobClient.setNotificationHandler('notifications/tools/list_changed', () => {
      changed = true;
    });
    credentials.connect(bob, 'bob-token');
    await eventually(() => changed, 'bob hears tools/list_changed');
    expect(await toolNames(bobClient)).toContain('me__echo');
    const before = personal.seen.length;
    await bobClient.callTool({ name: 'me__echo', arguments: { text: 'bob' } });
    expect(new Set(personal.seen.slice(before))).toEqual(new Set(['bob-token']));
    await aliceClient.callTool({ name: 'me__echo', arguments: { text: 'alice' } });
    expect(personal.seen.at(-1)).toBe('alice-token');
  });

  it('asks a client that declares URL-mode elicitation with the specification’s -32042', async () => {
    const credentials = new MapCredentials();
    const { gateway } = await gatewayWith(credentials, new Set());
    const client = await urlCapableClient(gateway, bob);
    const asked = await failure(client.callTool({ name: 'me__echo', arguments: { text: 'hi' } }));
    expect(asked.code).toBe(-32042);
    const [elicitation] = asked.data.elicitations as Record<string, unknown>[];
    expect(elicitation).toMatchObject({ mode: 'url' });
    expect(elicitation?.url).toMatch(/^https:\/\/gateway\.example\/oauth\/connect\/bob-me-/);
    expect(typeof elicitation?.elicitationId).toBe('string');
  });

  it('refreshes a refused token once; a refusal that a refresh does not cure asks the person again', async () => {
    const credentials = new MapCredentials();
    credentials.tokens.set(credentialOwner(alice), 'stale');
    credentials.next.set(credentialOwner(alice), 'fresh');
    const valid = new Set(['fresh']);
    const { gateway, personal } = await gatewayWith(credentials, valid);
    const client = await connect(cleanup, gateway, alice);
    await client.callTool({ name: 'me__echo', arguments: { text: 'hi' } });
    expect(personal.seen.slice(0, 2)).toEqual(['stale', 'fresh']);
    expect(credentials.tokens.get(credentialOwner(alice))).toBe('fresh');

    // The upstream stops accepting it (revoked at the server): dropped, and alice is asked again.
    valid.clear();
    const asked = await failure(client.callTool({ name: 'me__echo', arguments: { text: 'again' } }));
    expect(asked.data.reason).toBe('authorization_required');
    expect(credentials.tokens.has(credentialOwner(alice))).toBe(false);
  });

  it('refuses an anonymous network caller: one token would serve everyone who shares the identity', async () => {
    const credentials = new MapCredentials();
    const anonymous: Identity = { id: 'anonymous', groups: [], anonymous: true };
    credentials.tokens.set(credentialOwner(anonymous), 'shared');
    const { gateway, personal } = await gatewayWith(credentials, new Set(['shared']));
    const client = await connect(cleanup, gateway, anonymous);
    const refused = await failure(client.callTool({ name: 'me__echo', arguments: { text: 'hi' } }));
    expect(refused.data).toMatchObject({ reason: 'identity_required', upstream: 'me' });
    expect(personal.seen).toEqual([]);
  });

  it('keeps kinds of identity apart: an OAuth identity named alice never uses the static client alice’s connection', async () => {
    const credentials = new MapCredentials();
    credentials.tokens.set(credentialOwner(alice), 'alice-token');
    const { gateway, personal } = await gatewayWith(
      credentials,
      new Set(['alice-token', 'oauth-alice-token']),
    );
    const staticAlice = await connect(cleanup, gateway, alice);
    await staticAlice.callTool({ name: 'me__echo', arguments: { text: 'hi' } });
    expect(new Set(personal.seen)).toEqual(new Set(['alice-token']));

    // An OAuth caller whose subject is "alice" (it carries its access token): alice's open connection is
    // not its own, nor are her tools.
    const oauthAlice: Identity = { id: 'alice', groups: [], anonymous: false };
    attachSubjectToken(oauthAlice, 'issuer-token-of-oauth-alice');
    expect(credentialOwner(oauthAlice)).not.toBe(credentialOwner(alice));
    const impostor = await connect(cleanup, gateway, oauthAlice);
    expect((await toolNames(impostor)).some((n) => n.startsWith('me__'))).toBe(false);
    const asked = await failure(impostor.callTool({ name: 'me__echo', arguments: { text: 'hi' } }));
    expect(asked.data).toMatchObject({ reason: 'authorization_required', upstream: 'me' });
    expect(new Set(personal.seen)).toEqual(new Set(['alice-token']));

    // Once it connects its own account, each calls with its own token.
    credentials.connect(oauthAlice, 'oauth-alice-token');
    let before = personal.seen.length;
    await impostor.callTool({ name: 'me__echo', arguments: { text: 'oauth' } });
    expect(new Set(personal.seen.slice(before))).toEqual(new Set(['oauth-alice-token']));
    before = personal.seen.length;
    await staticAlice.callTool({ name: 'me__echo', arguments: { text: 'static' } });
    expect(new Set(personal.seen.slice(before))).toEqual(new Set(['alice-token']));
  });

  it('refuses resource subscriptions on a personal upstream (they would be shared across people)', async () => {
    const credentials = new MapCredentials();
    credentials.tokens.set(credentialOwner(alice), 'alice-token');
    const { gateway } = await gatewayWith(credentials, new Set(['alice-token']));
    const client = await connect(cleanup, gateway, alice);
    const refused = await failure(client.subscribeResource({ uri: 'me+test://anything' }));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(/acts as each person/);
  });
});
