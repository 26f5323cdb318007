import { afterAll, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, connectHttp, eventually, httpUpstream, loopbackServer } from './support/harness.js';

// An upstream chooses its error messages. One answering `initialize` with a 2 MB message had it logged
// whole at every failed attempt, listed whole as its `lastError` on the status page, and sent whole in the
// `upstream_unavailable` error of every client request routed to it (found from outside): each carries at
// most 4,096 characters of it now.

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

const ADMIN = 'admin-token-4e1b77';
const HUGE = 2_000_000;

/** A Streamable HTTP "server" answering every request with a JSON-RPC error whose message is 2 MB. */
async function loudUpstream(): Promise<string> {
  const message = 'E'.repeat(HUGE);
  const base = await loopbackServer(cleanup, async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const id = (JSON.parse(body || '{}') as { id?: unknown }).id;
    if (id === undefined) return void res.writeHead(202).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message } }));
  });
  return `${base}/mcp`;
}

describe('an upstream whose errors are megabytes long', () => {
  it('is logged, listed and reported to clients with at most 4,096 characters of them', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1 });
    const { gw, admin } = await startAdminGateway(
      cleanup,
      {
        clients: { ops: { token: ADMIN, groups: ['admins'] } },
        anonymous: 'local',
        mcpServers: { docs: { url: docs.url }, loud: { url: await loudUpstream() } },
      },
      { groups: ['admins'] },
    );
    const client = await connectHttp(cleanup, gw.url);
    const refused = await client
      .request({ method: 'resources/read', params: { uri: 'loud+test://x/1' } })
      .then(
        () => undefined,
        (error: { code?: number; message: string; data?: { reason?: string } }) => error,
      );
    expect(refused).toMatchObject({ data: { reason: 'upstream_unavailable' } });
    expect(refused!.message).toContain('EEEE');
    expect(refused!.message.length).toBeLessThan(5_000);
    const upstreams = await eventually(async () => {
      const status = await adminGet(admin, '/admin/status', ADMIN);
      const list = status.json.upstreams as Array<{ name: string; lastError?: string }>;
      return list.find((u) => u.name === 'loud')?.lastError ? list : undefined;
    }, 'the loud upstream listed with its last error');
    const lastError = upstreams.find((u) => u.name === 'loud')!.lastError!;
    expect(lastError.length).toBeLessThanOrEqual(4_097);
    expect(lastError.endsWith('…')).toBe(true);
    const longest = Math.max(
      ...gw
        .stderr()
        .split('\n')
        .map((line) => line.length),
    );
    expect(longest).toBeLessThan(6_000);
    expect((await client.request({ method: 'resources/list', params: {} })).resources).not.toHaveLength(0);
  });
});
