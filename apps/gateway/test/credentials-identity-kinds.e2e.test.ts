import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startAdminGateway } from './support/admin.js';
import { Cleanup, reservePort } from './support/harness.js';
import { startIssuer } from './support/issuer.js';
import { startAuthorizationServer } from './support/user-oauth/authorization-server.js';
import { consentByHttp } from './support/user-oauth/consent.js';
import { startProtectedUpstream } from './support/user-oauth/protected-upstream.js';

// Personal credentials (DESIGN §14) are kept per kind of identity as well as per id, through the real
// gateway CLI: a static client `alice` and an OAuth caller whose `sub` is "alice" (a JWT from a real
// issuer) are alike to plugins, but one never uses, lists or disconnects the other's upstream account.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const ALICE_TOKEN = 'alice-static-token-3c9e';
const KEY = 'identity-kinds-e2e-key-5a0b7d91c3e2f468';

async function setup() {
  const issuer = await startIssuer();
  cleanup.add(() => issuer.close());
  const as = await startAuthorizationServer();
  cleanup.add(() => as.close());
  const upstream = await startProtectedUpstream({ issuer: as.url });
  cleanup.add(() => upstream.close());
  // publicUrl and the OAuth resource are the HTTP listener's own origin: hold a port until the gateway starts.
  const reserved = await reservePort(cleanup);
  const origin = `http://127.0.0.1:${reserved.port}`;
  const resource = `${origin}/mcp`;
  await reserved.release();
  const { gw, admin } = await startAdminGateway(
    cleanup,
    {
      listen: { http: { host: '127.0.0.1', port: reserved.port, path: '/mcp' } },
      mcpServers: { tracker: { url: upstream.url, auth: { user: {} } } },
      clients: { alice: { token: '${ALICE_TOKEN}' } },
      auth: { oauth: { issuer: issuer.url, resource } },
      credentials: { key: '${CREDENTIALS_KEY}', publicUrl: origin },
    },
    { env: { ALICE_TOKEN, CREDENTIALS_KEY: KEY } },
  );
  /** A JWT from the issuer for the gateway, naming `sub`. */
  const oauthToken = (sub: string) => issuer.mint({ sub, aud: resource });
  return { gw, admin, origin, oauthToken };
}

async function clientWith(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'kinds', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  cleanup.add(() => client.close());
  return client;
}

/** What `whoami` at the upstream answers (the sub of the upstream account used), or the refusal. */
async function whoami(client: Client): Promise<{ sub?: string; reason?: string; url?: string }> {
  try {
    const result = await client.callTool({ name: 'tracker__whoami', arguments: {} });
    return { sub: (result.structuredContent as { sub: string }).sub };
  } catch (error) {
    const data = (error as { data?: { reason?: string; url?: string } }).data;
    return { reason: data?.reason, url: data?.url };
  }
}

async function credentialsApi(admin: string, method: string, path: string, token: string) {
  const res = await fetch(new URL(path, admin), { method, headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('personal credentials per kind of identity', () => {
  it('keep a static client and an OAuth subject of the same name apart: calls, list, disconnect', async () => {
    const { gw, admin, oauthToken } = await setup();
    const staticAlice = await clientWith(gw.url, ALICE_TOKEN);
    const asked = await whoami(staticAlice);
    expect(asked.reason).toBe('authorization_required');
    expect((await consentByHttp(asked.url!, { user: 'alice-account' })).status).toBe(200);
    expect(await whoami(staticAlice)).toEqual({ sub: 'alice-account' });

    // An OAuth caller whose subject is "alice": asked to connect its own account, never served alice's.
    const subAlice = await oauthToken('alice');
    const oauthAlice = await clientWith(gw.url, subAlice);
    const its = await whoami(oauthAlice);
    expect(its.reason).toBe('authorization_required');
    const tools = (await oauthAlice.listTools()).tools.map((t) => t.name);
    expect(tools.filter((name) => name.startsWith('tracker__'))).toEqual([]);

    // The admin API shows it its own (none), and its DELETE does not touch alice's.
    const listed = await credentialsApi(admin, 'GET', '/admin/credentials', subAlice);
    expect(listed).toEqual({ status: 200, json: { credentials: [{ server: 'tracker', connected: false }] } });
    const deleted = await credentialsApi(admin, 'DELETE', '/admin/credentials/tracker', subAlice);
    expect(deleted.json).toMatchObject({ server: 'tracker', disconnected: false });
    expect(await whoami(staticAlice)).toEqual({ sub: 'alice-account' });
    const aliceListed = await credentialsApi(admin, 'GET', '/admin/credentials', ALICE_TOKEN);
    expect(aliceListed.json.credentials).toMatchObject([{ server: 'tracker', connected: true }]);

    // It connects another account: each kind calls with its own from then on.
    expect((await consentByHttp(its.url!, { user: 'oauth-alice-account' })).status).toBe(200);
    expect(await whoami(oauthAlice)).toEqual({ sub: 'oauth-alice-account' });
    expect(await whoami(staticAlice)).toEqual({ sub: 'alice-account' });
    // A fresh token for the same subject is the same OAuth identity: it finds its own account.
    expect(await whoami(await clientWith(gw.url, await oauthToken('alice')))).toEqual({
      sub: 'oauth-alice-account',
    });

    // Alice disconnects hers: the OAuth identity keeps its own.
    const gone = await credentialsApi(admin, 'DELETE', '/admin/credentials/tracker', ALICE_TOKEN);
    expect(gone.json).toMatchObject({ disconnected: true });
    expect((await whoami(staticAlice)).reason).toBe('authorization_required');
    expect(await whoami(oauthAlice)).toEqual({ sub: 'oauth-alice-account' });
  });
});
