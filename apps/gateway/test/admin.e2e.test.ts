import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, connectHttp, eventually, httpUpstream, rawPost, reservePort } from './support/harness.js';

// The admin listener (DESIGN §10): health probes, readiness on required upstreams, and the status JSON
// behind the MCP identities, against the built CLI.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const ADMIN = 'admin-token-5d2c8e1a';
const READER = 'reader-token-9b4f7a03';

interface Status {
  requests: { total: number; errors: number; p50Ms?: number };
  upstreams: { name: string; state: string; calls: number; required: boolean; connectedSince?: string }[];
  sessions: { total: number; byIdentity: { identity: string; transport: string; sessions: number }[] };
  series: { bucketMs: number; buckets: { requests: number }[] };
  recent: { method: string; identity: string; outcome: string }[];
  reloads: unknown[];
  refusals: Record<string, number>;
  cache?: { hit: number; miss: number; bytes: number };
}

describe('admin listener', () => {
  it('is alive at once, and ready only while every required upstream is connected', async () => {
    const { port, release } = await reservePort(cleanup);
    const optional = await httpUpstream(cleanup, { name: 'optional', resources: 1 });
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: {
        docs: { url: `http://127.0.0.1:${port}/mcp`, required: true },
        optional: { url: optional.url },
      },
    });
    expect(await adminGet(admin, '/healthz')).toEqual({ status: 200, json: { status: 'ok' } });
    const down = await adminGet(admin, '/readyz');
    expect(down.status).toBe(503);
    expect(down.json).toMatchObject({ status: 'not_ready', upstreams: [{ name: 'docs' }] });
    expect(JSON.stringify(down.json)).not.toContain('optional');

    const docs = new TestServer({ name: 'docs', resources: 2 });
    cleanup.add(() => docs.close());
    await release();
    await docs.listenHttp({ port });
    const ready = await eventually(
      async () => {
        const r = await adminGet(admin, '/readyz');
        return r.status === 200 && r;
      },
      'readyz 200 once the required upstream connects',
      15_000,
    );
    expect(ready.json).toEqual({ status: 'ready' });

    // Killing the optional upstream does not change readiness; killing the required one does (an HTTP
    // upstream is seen to be gone when the next call to it fails).
    const client = await connectHttp(cleanup, gw.url);
    await optional.server.close();
    await client.readResource({ uri: 'optional+test://optional/r/0' }).catch(() => {});
    expect((await adminGet(admin, '/readyz')).status).toBe(200);
    await docs.close();
    await client.readResource({ uri: 'docs+test://docs/r/0' }).catch(() => {});
    await eventually(
      async () => (await adminGet(admin, '/readyz')).status === 503,
      'readyz 503 after the required upstream went away',
    );
  });

  it('serves /admin/status only to admin identities, with numbers that follow the traffic', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 3 });
    const { gw, admin } = await startAdminGateway(
      cleanup,
      {
        mcpServers: { docs: { url: docs.url } },
        clients: {
          ops: { token: '${ADMIN_TOKEN}', groups: ['ops'] },
          reader: { token: '${READER_TOKEN}', groups: ['readers'] },
        },
        plugins: [['@switchyard/plugin-cache', {}]],
      },
      { env: { ADMIN_TOKEN: ADMIN, READER_TOKEN: READER }, groups: ['ops'] },
    );
    // Probes need no identity even when clients are configured.
    expect((await adminGet(admin, '/healthz')).status).toBe(200);
    expect((await adminGet(admin, '/readyz')).status).toBe(200);

    const missing = await adminGet(admin, '/admin/status');
    expect(missing.status).toBe(401);
    expect((await adminGet(admin, '/admin/status', 'not-a-token')).status).toBe(401);
    const reader = await adminGet(admin, '/admin/status', READER);
    expect(reader.status).toBe(403);
    expect(reader.json.error).toMatch(/admin groups \(ops\)/);
    const before = await adminGet(admin, '/admin/status', ADMIN);
    expect(before.status).toBe(200);
    const s0 = before.json as unknown as Status;
    expect(s0.upstreams).toMatchObject([{ name: 'docs', state: 'ready', required: false }]);
    expect(s0.upstreams[0]!.connectedSince).toBeTypeOf('string');
    expect(s0.reloads).toEqual([]);
    expect(s0.series.buckets.length).toBeGreaterThanOrEqual(60);

    const client = await connectHttp(cleanup, gw.url, 'status-test', { token: READER });
    const { resources } = await client.listResources();
    await client.readResource({ uri: resources[0]!.uri });
    await client.readResource({ uri: resources[0]!.uri });
    await expect(client.readResource({ uri: 'docs+mem:///nope' })).rejects.toThrow();
    // A refusal of the listener's own (found from outside: `refusals` stayed {}).
    const pad = 'x'.repeat(5 * 1024 * 1024);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', params: { pad } });
    expect((await rawPost(gw.url, big, { authorization: `Bearer ${READER}` })).status).toBe(413);

    const s1 = (await adminGet(admin, '/admin/status', ADMIN)).json as unknown as Status;
    expect(s1.refusals).toMatchObject({ body_too_large: 1 });
    expect(s1.requests.total).toBeGreaterThanOrEqual(s0.requests.total + 4);
    expect(s1.requests.errors).toBeGreaterThanOrEqual(1);
    expect(s1.requests.p50Ms).toBeTypeOf('number');
    expect(s1.upstreams[0]!.calls).toBeGreaterThan(s0.upstreams[0]!.calls);
    expect(s1.sessions.byIdentity).toContainEqual({ identity: 'reader', transport: 'http', sessions: 1 });
    expect(s1.recent[0]).toMatchObject({ method: 'resources/read', identity: 'reader', outcome: 'error' });
    expect(s1.series.buckets.at(-1)!.requests + s1.series.buckets.at(-2)!.requests).toBeGreaterThanOrEqual(4);
    expect(s1.cache).toMatchObject({ hit: 1 });
    expect(s1.cache!.bytes).toBeGreaterThan(0);
  });

  it('checks Host like the MCP listener', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1 });
    const { admin } = await startAdminGateway(cleanup, { mcpServers: { docs: { url: docs.url } } });
    const url = new URL('/admin/status', admin);
    // fetch() does not let a page set Host; a raw request does.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { headers: { host: 'evil.example.com' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    // With no identities configured the loopback admin listener is open.
    expect((await adminGet(admin, '/admin/status')).status).toBe(200);
  });
});
