import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/client';
import { redisMissing, startRedis } from '@switchyard/testkit/process';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAdminGateway } from './support/admin.js';
import { CHROMIUM, launchBrowser, signIn } from './support/browser.js';
import { Cleanup, eventually, type GatewayProcess, reservePort } from './support/harness.js';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/user-oauth/authorization-server.js';
import {
  type ConsentResult,
  completeConsent,
  consentByBrowser,
  consentByHttp,
} from './support/user-oauth/consent.js';
import { type ProtectedUpstream, startProtectedUpstream } from './support/user-oauth/protected-upstream.js';

// Each person's own upstream credentials (DESIGN §14) through the real gateway CLI: a personal upstream
// (`auth.user`) behind the official server SDK's bearer auth, a real authorization server (oidc-provider:
// code + PKCE, refresh, resource indicators, dynamic registration, revocation), consent by plain HTTP and
// by Chromium, and official SDK clients of both protocol eras calling as alice and bob.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
/** For the gateway (and backends) that the two tests of each client era share. */
const shared = new Cleanup();
afterAll(() => shared.run());

const KEY = 'personal-credentials-e2e-key-7c1f0a93b5d2e486';
const CURSOR_SECRET = 'personal-credentials-cursor-secret-0123456789';
const TOKENS = {
  alice: 'alice-client-token-4b1e',
  bob: 'bob-client-token-9d7a',
  carol: 'carol-client-token-e25c',
} as const;
type Person = keyof typeof TOKENS;
type Era = 'legacy' | 'modern';

interface Gateway {
  as: AuthorizationServer;
  upstream: ProtectedUpstream;
  gw: GatewayProcess;
  /** The MCP endpoint. */
  url: string;
  /** `credentials.publicUrl`: the HTTP listener's own origin. */
  origin: string;
  admin: string;
  audit: string;
  /** Every refresh token and authorization code the authorization server issued. */
  issued: Set<string>;
  /** Every connect link the gateway gave (whoever opens one connects their account for its caller). */
  links: string[];
}

interface Setup {
  accessTokenTtlSec?: number;
  /** An authorization server and upstream already running (replicas share them). */
  shared?: Pick<Gateway, 'as' | 'upstream' | 'issued' | 'links'>;
  store?: Record<string, unknown>;
  /** Who stops it all: the test's cleanup unless tests share it. */
  owner?: Cleanup;
}

async function backends(
  accessTokenTtlSec?: number,
  owner = cleanup,
): Promise<Pick<Gateway, 'as' | 'upstream' | 'issued' | 'links'>> {
  const as = await startAuthorizationServer({ accessTokenTtlSec });
  owner.add(() => as.close());
  const upstream = await startProtectedUpstream({ issuer: as.url });
  owner.add(() => upstream.close());
  // Opaque values (refresh tokens, codes) are their jti: collect them to look for them in logs later.
  const issued = new Set<string>();
  as.provider.on('refresh_token.saved', (token) => issued.add(token.jti));
  as.provider.on('authorization_code.saved', (code) => issued.add(code.jti));
  return { as, upstream, issued, links: [] };
}

/**
 * The gateway CLI with a personal upstream `tracker`, clients alice, bob and carol, an admin listener and
 * an audit file.
 */
async function setup(options: Setup = {}): Promise<Gateway> {
  const owner = options.owner ?? cleanup;
  const shared = options.shared ?? (await backends(options.accessTokenTtlSec, owner));
  // publicUrl is the HTTP listener's own origin: hold a port, release it right before the gateway starts.
  const reserved = await reservePort(owner);
  const origin = `http://127.0.0.1:${reserved.port}`;
  await reserved.release();
  const { gw, admin } = await startAdminGateway(
    owner,
    {
      listen: { http: { host: '127.0.0.1', port: reserved.port, path: '/mcp' } },
      mcpServers: { tracker: { url: shared.upstream.url, auth: { user: {} } } },
      clients: {
        alice: { token: '${ALICE_TOKEN}', groups: ['admins'] },
        bob: { token: '${BOB_TOKEN}' },
        carol: { token: '${CAROL_TOKEN}' },
      },
      anonymous: 'guest',
      credentials: { key: '${CREDENTIALS_KEY}', publicUrl: origin },
      cursorSecret: CURSOR_SECRET,
      plugins: [['@switchyard/plugin-audit', { file: './audit.jsonl', fsync: 'always', arguments: true }]],
      ...(options.store ? { store: options.store } : {}),
    },
    {
      env: {
        ALICE_TOKEN: TOKENS.alice,
        BOB_TOKEN: TOKENS.bob,
        CAROL_TOKEN: TOKENS.carol,
        CREDENTIALS_KEY: KEY,
      },
    },
  );
  return { ...shared, gw, url: gw.url, origin, admin, audit: join(dirname(gw.file), 'audit.jsonl') };
}

interface Connected {
  client: Client;
  /** tools/list_changed notifications heard so far. */
  listChanged: () => number;
}

/** An official SDK client of `era` calling as `who` (no token: an anonymous caller). */
async function connect(
  url: string,
  who: Person | undefined,
  era: Era,
  capabilities?: Record<string, unknown>,
): Promise<Connected> {
  const client = new Client(
    { name: `${who ?? 'nobody'}-${era}`, version: '1.0.0' },
    {
      ...(capabilities ? { capabilities } : {}),
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  let heard = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    heard += 1;
  });
  if (capabilities?.elicitation) {
    client.setRequestHandler('elicitation/create', () => ({ action: 'decline' }));
  }
  const requestInit = who ? { headers: { authorization: `Bearer ${TOKENS[who]}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  cleanup.add(() => client.close());
  expect(client.getProtocolEra()).toBe(era);
  if (era === 'modern') {
    const listen = await client.listen({ toolsListChanged: true });
    cleanup.add(() => listen.close());
  }
  return { client, listChanged: () => heard };
}

interface Refusal {
  code: number;
  message: string;
  data: { reason?: string; upstream?: string; url?: string; elicitations?: Record<string, unknown>[] };
}

async function refusalOf(promise: Promise<unknown>): Promise<Refusal & Error> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as Refusal & Error;
}

const whoami = (client: Client) => client.callTool({ name: 'tracker__whoami', arguments: {} });
const subOf = async (client: Client) => ((await whoami(client)).structuredContent as { sub: string }).sub;
const trackerTools = async (client: Client) =>
  (await client.listTools()).tools.map((t) => t.name).filter((name) => name.startsWith('tracker__'));

/** The -32016 authorization_required answer to a caller who has not connected, with its connect link. */
async function askedToConnect(gw: Gateway, client: Client): Promise<string> {
  const error = await refusalOf(whoami(client));
  expect(error.code).toBe(-32016);
  expect(error.data).toMatchObject({ reason: 'authorization_required', upstream: 'tracker' });
  expect(error.data.url).toMatch(new RegExp(`^${gw.origin}/oauth/connect/[^/]+$`));
  gw.links.push(error.data.url!);
  return error.data.url!;
}

/** Consent in a plain browser (Chromium when there is one and `browser` is asked for, else HTTP). */
async function consent(url: string, user: Person, browser = false): Promise<ConsentResult> {
  const result =
    browser && CHROMIUM
      ? await consentByBrowser(await launchBrowser(cleanup), url, { user })
      : await consentByHttp(url, { user });
  expect(result.status).toBe(200);
  expect(result.body).toContain('Connected tracker');
  return result;
}

/** Asked to connect, consents, and the same call then answers `who`. */
async function connectAccount(gw: Gateway, client: Client, who: Person, browser = false): Promise<void> {
  await consent(await askedToConnect(gw, client), who, browser);
  expect(await subOf(client)).toBe(who);
}

async function credentialsApi(gw: Gateway, method: string, path: string, who?: Person) {
  const res = await fetch(new URL(path, gw.admin), {
    method,
    headers: who ? { authorization: `Bearer ${TOKENS[who]}` } : {},
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A GET as a browser sends it, redirects not followed. */
async function browse(url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, body: await res.text() };
}

/** Every upstream session (and every token) carried one person's tokens only. */
function expectOnePersonPerSessionAndToken(upstream: ProtectedUpstream): void {
  const subs = new Map<string, Set<string | undefined>>();
  for (const seen of upstream.seen.filter((s) => s.accepted)) {
    for (const key of [`token ${seen.token}`, ...(seen.session ? [`session ${seen.session}`] : [])]) {
      subs.set(key, (subs.get(key) ?? new Set()).add(seen.sub));
    }
  }
  for (const [key, set] of subs) expect(set.size, `${key.slice(0, 20)}… carried ${[...set]}`).toBe(1);
}

/** No access token, refresh token, code or credentials key in the gateway's logs, audit file or status. */
async function expectNoSecrets(gw: Gateway, gateways: GatewayProcess[] = [gw.gw]): Promise<void> {
  const tickets = gw.links.map((link) => link.slice(link.lastIndexOf('/') + 1));
  const secrets = [
    ...gw.upstream.tokens(),
    ...gw.as.revocations.map((r) => r.token),
    ...gw.issued,
    ...tickets,
    KEY,
  ];
  expect(secrets.length).toBeGreaterThan(2);
  const status = await fetch(new URL('/admin/status', gw.admin), {
    headers: { authorization: `Bearer ${TOKENS.alice}` },
  });
  expect(status.status).toBe(200);
  const places: Record<string, string> = {
    'the status JSON': await status.text(),
    'the audit file': existsSync(gw.audit) ? readFileSync(gw.audit, 'utf8') : '',
  };
  gateways.forEach((g, i) => {
    places[`gateway ${i}'s stderr`] = g.stderr();
    places[`gateway ${i}'s stdout`] = g.stdout();
  });
  expect(places['the audit file']).toContain('tracker__whoami');
  for (const [place, text] of Object.entries(places)) {
    for (const secret of secrets) {
      expect(text.includes(secret), `${place} holds a secret (${secret.slice(0, 12)}…)`).toBe(false);
    }
  }
}

describe.each(['legacy', 'modern'] as const)('a %s client', (era) => {
  // One gateway for both tests of an era: the second is carol's, who has connected nothing when it runs
  // (the first connects alice and bob only).
  let gw: Gateway;
  beforeAll(async () => {
    gw = await setup({ owner: shared });
  });

  it('is asked to connect, consents, and then calls the upstream as itself; bob stays bob', async () => {
    const alice = await connect(gw.url, 'alice', era);
    expect(await trackerTools(alice.client)).toEqual([]);

    const url = await askedToConnect(gw, alice.client);
    const heard = alice.listChanged();
    await consent(url, 'alice');
    await eventually(() => alice.listChanged() > heard, 'tools/list_changed on alice’s session', 5000);
    expect(await subOf(alice.client)).toBe('alice');
    expect((await trackerTools(alice.client)).sort()).toEqual(['tracker__echo', 'tracker__whoami']);
    await expect(
      alice.client.callTool({ name: 'tracker__echo', arguments: { text: 'hi' } }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'hi' }] });

    // bob has not connected: he sees none of its tools and is asked, whatever alice did.
    const bob = await connect(gw.url, 'bob', era);
    expect(await trackerTools(bob.client)).toEqual([]);
    await connectAccount(gw, bob.client, 'bob', era === 'legacy');
    expect(await subOf(alice.client)).toBe('alice');
    expect(await subOf(bob.client)).toBe('bob');
    // Interleaved, each call still goes out with its own caller's token.
    const people = ['alice', 'bob', 'alice', 'bob', 'bob', 'alice', 'bob', 'alice'] as const;
    const answers = await Promise.all(people.map((p) => subOf((p === 'alice' ? alice : bob).client)));
    expect(answers).toEqual(people);

    const subs = new Set(gw.upstream.seen.filter((s) => s.accepted).map((s) => s.sub));
    expect(subs).toEqual(new Set(['alice', 'bob']));
    expectOnePersonPerSessionAndToken(gw.upstream);

    // An anonymous network caller is nobody in particular: no one's token serves it.
    const guest = await connect(gw.url, undefined, era);
    expect(await trackerTools(guest.client)).toEqual([]);
    const anonymous = await refusalOf(whoami(guest.client));
    expect(anonymous.code).toBe(-32007);
    expect(anonymous.data).toMatchObject({ reason: 'identity_required', upstream: 'tracker' });
  });

  it('declaring URL elicitation, gets URLElicitationRequired (-32042) with a usable link', async () => {
    const carol = await connect(gw.url, 'carol', era, { elicitation: { url: {} } });
    const error = await refusalOf(whoami(carol.client));
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect(error.code).toBe(-32042);
    const [elicitation] = (error as unknown as UrlElicitationRequiredError).elicitations;
    expect(elicitation).toMatchObject({ mode: 'url', elicitationId: expect.any(String) });
    expect(elicitation!.message).toContain('tracker');
    expect(elicitation!.url).toMatch(new RegExp(`^${gw.origin}/oauth/connect/[^/]+$`));
    await consent(elicitation!.url, 'carol');
    expect(await subOf(carol.client)).toBe('carol');
  });
});

describe('the admin API and the OAuth routes', () => {
  it('lists, links and disconnects only the caller’s own credentials (revoking them)', async () => {
    const gw = await setup();
    const alice = await connect(gw.url, 'alice', 'legacy');
    const bob = await connect(gw.url, 'bob', 'legacy');
    await connectAccount(gw, alice.client, 'alice');

    const mine = await credentialsApi(gw, 'GET', '/admin/credentials', 'alice');
    expect(mine.status).toBe(200);
    expect(mine.json).toEqual({
      credentials: [{ server: 'tracker', connected: true, expiresAt: expect.any(String) }],
    });
    const expiresAt = Date.parse((mine.json.credentials as { expiresAt: string }[])[0]!.expiresAt);
    expect(expiresAt).toBeGreaterThan(Date.now());
    expect(await credentialsApi(gw, 'GET', '/admin/credentials', 'bob')).toEqual({
      status: 200,
      json: { credentials: [{ server: 'tracker', connected: false }] },
    });

    // bob connects through the admin API's link (the status page's Connect).
    const link = await credentialsApi(gw, 'POST', '/admin/credentials/tracker', 'bob');
    expect(link.status).toBe(200);
    expect(link.json).toMatchObject({
      server: 'tracker',
      url: expect.stringMatching(`^${gw.origin}/oauth/`),
    });
    gw.links.push(link.json.url as string);
    await consent(link.json.url as string, 'bob');
    expect(await subOf(bob.client)).toBe('bob');
    expect((await credentialsApi(gw, 'GET', '/admin/credentials', 'bob')).json).toMatchObject({
      credentials: [{ server: 'tracker', connected: true }],
    });

    // alice disconnects: revoked at the authorization server, asked again, her tools gone; bob unaffected.
    const heard = alice.listChanged();
    const gone = await credentialsApi(gw, 'DELETE', '/admin/credentials/tracker', 'alice');
    expect(gone).toMatchObject({ status: 200, json: { server: 'tracker', connected: false } });
    expect(gw.as.revocations.some((r) => r.status === 200)).toBe(true);
    await askedToConnect(gw, alice.client);
    await eventually(() => alice.listChanged() > heard, 'tools/list_changed after the disconnect', 5000);
    expect(await trackerTools(alice.client)).toEqual([]);
    expect((await credentialsApi(gw, 'GET', '/admin/credentials', 'alice')).json).toEqual({
      credentials: [{ server: 'tracker', connected: false }],
    });
    expect(await subOf(bob.client)).toBe('bob');

    expect((await credentialsApi(gw, 'DELETE', '/admin/credentials/nowhere', 'alice')).status).toBe(404);
    expect((await credentialsApi(gw, 'POST', '/admin/credentials/nowhere', 'bob')).status).toBe(404);
    expect((await credentialsApi(gw, 'GET', '/admin/credentials')).status).toBe(401);
    expect((await credentialsApi(gw, 'DELETE', '/admin/credentials/tracker')).status).toBe(401);
    expect(await subOf(bob.client)).toBe('bob');

    // The upstream refuses bob's token: refreshed once and retried. Refused for good: dropped, asked again.
    gw.upstream.refuse(gw.upstream.tokens().at(-1)!);
    const tokenCalls = gw.as.count('/token');
    expect(await subOf(bob.client)).toBe('bob');
    expect(gw.as.count('/token')).toBe(tokenCalls + 1);
    gw.upstream.refuseAll(true);
    await askedToConnect(gw, bob.client);
    // Refused from the first handshake of a fresh connection: asked again, not left waiting (found from
    // outside: the call hung, its connection closed before it was ever ready).
    await consent(await askedToConnect(gw, bob.client), 'bob');
    await askedToConnect(gw, bob.client);
    gw.upstream.refuseAll(false);
    expect((await credentialsApi(gw, 'GET', '/admin/credentials', 'bob')).json).toEqual({
      credentials: [{ server: 'tracker', connected: false }],
    });
    expectOnePersonPerSessionAndToken(gw.upstream);
    await expectNoSecrets(gw);
  });

  it('refuses a reused link and a garbage callback, and keeps serving', async () => {
    const gw = await setup();
    const alice = await connect(gw.url, 'alice', 'modern');
    const url = await askedToConnect(gw, alice.client);
    await consent(url, 'alice');
    const reused = await browse(url);
    expect(reused.status).toBe(404);
    expect(reused.body).toContain('<html');
    for (const query of ['?code=garbage&state=garbage', '', `?state=${'A'.repeat(43)}&code=x&iss=x`]) {
      expect((await browse(`${gw.origin}/oauth/callback${query}`)).status).toBe(400);
    }
    expect((await browse(`${gw.origin}/oauth/connect/not-a-ticket`)).status).toBe(404);
    expect(await subOf(alice.client)).toBe('alice');
  });
});

describe('tokens over time', () => {
  it('refreshes an expired token once for many concurrent calls, and never shows a secret', async () => {
    const gw = await setup({ accessTokenTtlSec: 3 });
    const alice = await connect(gw.url, 'alice', 'legacy');
    await connectAccount(gw, alice.client, 'alice');
    const current = gw.upstream.seen.filter((s) => s.accepted).at(-1)!.token;
    const { exp } = decodeJwt(current);
    await eventually(() => Date.now() > exp! * 1000 + 100, 'the access token to expire', 6000);

    const before = gw.as.count('/token');
    const subs = await Promise.all(Array.from({ length: 10 }, () => subOf(alice.client)));
    expect(subs).toEqual(Array(10).fill('alice'));
    expect(gw.as.count('/token') - before).toBe(1);
    const fresh = gw.upstream.seen.filter((s) => s.accepted).at(-1)!.token;
    expect(fresh).not.toBe(current);
    expect(gw.upstream.seen.filter((s) => s.token === current && !s.accepted)).toEqual([]);
    // The fresh token lives 3 s: the calls made while it does need no other refresh.
    const refreshed = gw.as.count('/token');
    expect(await subOf(alice.client)).toBe('alice');
    expect(gw.as.count('/token') - refreshed).toBe(0);

    await credentialsApi(gw, 'DELETE', '/admin/credentials/tracker', 'alice');
    await expectNoSecrets(gw);
  });
});

describe.skipIf(redisMissing() !== undefined)('two replicas on one redis-server', () => {
  it('a person connected through one replica calls through the other; a disconnect there reaches both', async () => {
    const redis = await startRedis();
    cleanup.add(() => redis.stop());
    const shared = await backends();
    const store = { redis: { url: redis.url } };
    const [a, b] = [await setup({ shared, store }), await setup({ shared, store })];
    const onB = await connect(b!.url, 'alice', 'legacy');
    const onA = await connect(a!.url, 'alice', 'modern');

    const url = await askedToConnect(a!, onA.client);
    const heard = onB.listChanged();
    await consent(url, 'alice');
    expect(await subOf(onA.client)).toBe('alice');
    await eventually(() => onB.listChanged() > heard, 'tools/list_changed on the other replica', 5000);
    expect(await subOf(onB.client)).toBe('alice');
    expect((await credentialsApi(b!, 'GET', '/admin/credentials', 'alice')).json).toMatchObject({
      credentials: [{ server: 'tracker', connected: true }],
    });

    expect((await credentialsApi(b!, 'DELETE', '/admin/credentials/tracker', 'alice')).status).toBe(200);
    await askedToConnect(a!, onA.client);
    await askedToConnect(b!, onB.client);
    await expectNoSecrets(a!, [a!.gw, b!.gw]);
  });
});

describe.skipIf(!CHROMIUM)('the status page', () => {
  // Each browser step fails on its own, naming what it waited for, well before the test's timeout.
  const STEP_MS = 8000;
  it('shows each signed-in person their own accounts, with Connect and Disconnect that work', async () => {
    const gw = await setup();
    const browser = await launchBrowser(cleanup);
    const page = await browser.newPage();
    page.setDefaultTimeout(STEP_MS);
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(String(error)));
    await signIn(page, gw.admin, TOKENS.alice);
    const row = '#credentials tr[data-credential="tracker"]';
    await page.waitForSelector(`${row} button.connect`);
    expect(await page.$eval(row, (el) => el.textContent ?? '')).toContain('not connected');
    // A poll that changes nothing keeps the button: one swapped under the pointer loses the click.
    await page.evaluate(`window.__button = document.querySelector('${row} button.connect');
      window.__updated = document.getElementById('updated').textContent`);
    await page.waitForFunction(`document.getElementById('updated').textContent !== window.__updated`);
    expect(await page.evaluate(`document.querySelector('${row} button.connect') === window.__button`)).toBe(
      true,
    );

    // Connect opens the sign-in in a new tab; consenting there connects alice, and the page follows.
    const opened = browser.waitForTarget((target) => target.opener() === page.target());
    await page.click(`${row} button.connect`);
    const tab = await (await opened).page();
    if (!tab) throw new Error('Connect opened no tab');
    tab.setDefaultTimeout(STEP_MS);
    await tab.waitForSelector('body[data-prompt]');
    const done = await completeConsent(tab, null, { user: 'alice' });
    expect(done.body).toContain('Connected tracker');
    await tab.close();
    await page.bringToFront();
    await page.waitForSelector(`${row} button.disconnect`);
    const alice = await connect(gw.url, 'alice', 'legacy');
    expect(await subOf(alice.client)).toBe('alice');

    // bob, in no admin group, sees his own accounts only: tracker, not connected.
    const other = await (await browser.createBrowserContext()).newPage();
    other.setDefaultTimeout(STEP_MS);
    await signIn(other, gw.admin, TOKENS.bob);
    await other.waitForSelector(`${row} button.connect`);
    expect(await other.$eval('#main', (el) => (el as unknown as { hidden: boolean }).hidden)).toBe(true);

    // Disconnect forgets alice's token and revokes it: her next call asks again.
    const revocations = gw.as.revocations.length;
    await page.bringToFront(); // a background tab gets no animation frames to click in
    await page.click(`${row} button.disconnect`);
    await page.waitForSelector(`${row} button.connect`);
    expect(gw.as.revocations.length).toBeGreaterThan(revocations);
    await askedToConnect(gw, alice.client);
    expect(failures).toEqual([]);
  });
});
