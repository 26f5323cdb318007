import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, httpUpstream, rawInitialize } from './support/harness.js';

// Plugins' own admin endpoints and status sections (`admin` hook), served by the built CLI's admin
// listener behind the same identities as /admin/status.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PLUGIN = fileURLToPath(new URL('./fixtures/admin-plugin.js', import.meta.url));
const ADMIN = 'admin-token-0c7d1e55';
const APPROVER = 'approver-token-6a1f0b92';
const READER = 'reader-token-3e9b4c18';

async function adminPost(base: string, path: string, body: string, token?: string) {
  const res = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
  return {
    status: res.status,
    json: (await res.json()) as Record<string, unknown>,
    allow: res.headers.get('allow'),
  };
}

describe('plugin admin endpoints', () => {
  it('adds the plugin section to /admin/status and serves its endpoints to admins and the route groups only', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1 });
    const { admin } = await startAdminGateway(
      cleanup,
      {
        clients: {
          ops: { token: ADMIN, groups: ['admins'] },
          approver: { token: APPROVER, groups: ['approvers'] },
          reader: { token: READER },
        },
        mcpServers: { docs: { url: docs.url } },
        plugins: [[PLUGIN, { approvers: ['approvers'] }]],
      },
      { groups: ['admins'] },
    );

    const status = await adminGet(admin, '/admin/status', ADMIN);
    expect(status.json.queue).toEqual({ pending: [{ id: 'a1', state: 'pending' }] });
    expect(status.json.upstreams).toBeDefined(); // the gateway's own sections are all there

    // GET route: admins only (the route names no groups of its own).
    expect((await adminGet(admin, '/admin/queue', ADMIN)).json).toEqual({
      items: [{ id: 'a1', state: 'pending' }],
    });
    expect((await adminGet(admin, '/admin/queue', APPROVER)).status).toBe(403);
    expect((await adminGet(admin, '/admin/queue')).status).toBe(401);

    // POST route: the route's own group is admitted beside the admin groups; a reader is not.
    expect((await adminPost(admin, '/admin/queue/a1', '{"decision":"approve"}', READER)).status).toBe(403);
    expect((await adminPost(admin, '/admin/queue/a1', '{"decision":"approve"}')).status).toBe(401);
    expect(await adminPost(admin, '/admin/queue/a1', '{"decision":"maybe"}', APPROVER)).toMatchObject({
      status: 400,
      json: { error: expect.stringContaining('decision') },
    });
    expect(await adminPost(admin, '/admin/queue/a1', '{"decision":"approve"}', APPROVER)).toMatchObject({
      status: 200,
      json: { id: 'a1', state: 'approved', by: 'approver' },
    });
    expect((await adminGet(admin, '/admin/status', ADMIN)).json.queue).toEqual({ pending: [] });

    // Bad input: not JSON, too large, unknown paths and methods, a handler that throws.
    expect(await adminPost(admin, '/admin/queue/a1', '{not json', APPROVER)).toMatchObject({
      status: 400,
      json: { error: expect.stringContaining('not JSON') },
    });
    const huge = JSON.stringify({ decision: 'approve', pad: 'x'.repeat(70 * 1024) });
    expect((await adminPost(admin, '/admin/queue/a1', huge, APPROVER)).status).toBe(413);
    expect((await adminPost(admin, '/admin/queue/zz', '{"decision":"deny"}', ADMIN)).status).toBe(404);
    expect((await adminGet(admin, '/admin/nothing', ADMIN)).status).toBe(404);
    const wrongMethod = await adminPost(admin, '/admin/queue', '{}', ADMIN);
    expect(wrongMethod).toMatchObject({ status: 405, allow: 'GET' });
    expect(await adminGet(admin, '/admin/queue/broken', ADMIN)).toEqual({
      status: 500,
      json: { error: 'Internal error' },
    });
    expect((await adminPost(admin, '/admin/status', '{}', ADMIN)).status).toBe(405);
    expect((await adminPost(admin, '/healthz', '{}')).status).toBe(405);
  });

  it('never admits the anonymous identity, even when `anonymous` names an admin; MCP still does', async () => {
    // Found from outside: with `"anonymous": "ops"` (ops an admin) a caller without a token had full admin
    // (/admin/status, a plugin's GET and POST routes), also on 0.0.0.0.
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1 });
    const { gw, admin } = await startAdminGateway(
      cleanup,
      {
        clients: { ops: { token: ADMIN, groups: ['admins'] } },
        anonymous: 'ops',
        mcpServers: { docs: { url: docs.url } },
        plugins: [[PLUGIN, { approvers: ['approvers'] }]],
      },
      { groups: ['admins'] },
    );
    const status = await fetch(new URL('/admin/status', admin));
    expect(status.status).toBe(401);
    expect(status.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await adminGet(admin, '/admin/queue')).status).toBe(401);
    expect((await adminPost(admin, '/admin/queue/a1', '{"decision":"approve"}')).status).toBe(401);
    expect((await adminGet(admin, '/admin/status', ADMIN)).status).toBe(200);
    // The probes stay public; a tokenless MCP caller is still the anonymous identity, as configured.
    expect((await adminGet(admin, '/healthz')).status).toBe(200);
    expect((await adminGet(admin, '/readyz')).status).toBe(200);
    expect((await rawInitialize(gw.url)).sessionId).toBeTypeOf('string');
  });
});
