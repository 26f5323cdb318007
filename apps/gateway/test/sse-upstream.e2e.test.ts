import { rssMiB } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, connectHttp, eventually } from './support/harness.js';
import { sseUpstream } from './support/sse-upstream.js';

// A legacy HTTP+SSE upstream (2024-11-05) that misbehaves, on loopback, behind a real gateway process:
// what its URL holds stays secret, its stream dropping ends the connection (and the gateway reconnects
// through a new, initialized session), and what it sends is bounded by limits.maxResultBytes.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const MIB = 1024 * 1024;
const PASSWORD = 'S3cretPassw0rd';
const TOKEN = 'QueryT0ken77';
const SECRETS = new RegExp(`${PASSWORD}|${TOKEN}`);

type Status = { upstreams: { name: string; state: string; connections: number; lastError?: string }[] };

async function upstreamStatus(admin: string, name: string) {
  const { json } = await adminGet(admin, '/admin/status');
  return (json as unknown as Status).upstreams.find((u) => u.name === name)!;
}

describe('legacy HTTP+SSE upstream', () => {
  it('sends the URL userinfo as Basic authorization and never shows the URL secrets in the log, status or errors', async () => {
    // Found from outside: the URL never connected (fetch refuses credentials in a URL), and the refusal
    // quoted the whole URL, password and token, into the log, /admin/status and every caller's error.
    const basic = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`;
    const upstream = await sseUpstream(cleanup, { authorization: basic, token: TOKEN });
    const withSecrets = (password: string) =>
      upstream.url.replace('http://', `http://alice:${password}@`).concat(`?token=${TOKEN}`);
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: {
        old: { url: withSecrets(PASSWORD), transport: 'sse' },
        wrong: { url: withSecrets(`not${PASSWORD}`), transport: 'sse' },
      },
    });
    // The one refused (a wrong password) says why, without its secrets, wherever it says it.
    await gw.waitForLine(/\[switchyard:upstream:wrong\] failed to connect/);
    const client = await connectHttp(cleanup, gw.url);
    const refused = await client.callTool({ name: 'wrong__good' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32003, data: { reason: 'upstream_unavailable' } });
    const wrong = await upstreamStatus(admin, 'wrong');
    expect(`${(refused as Error).message} ${wrong.lastError}`).not.toMatch(SECRETS);
    expect(JSON.stringify(await adminGet(admin, '/admin/status'))).not.toMatch(SECRETS);
    expect(`${gw.stdout()}${gw.stderr()}`).not.toMatch(SECRETS);
    expect(wrong.state).not.toBe('ready');
    expect(wrong.lastError).toMatch(/HTTP 401/);
    expect((refused as Error).message).toMatch(/HTTP 401/);

    // The one with the right credentials connects.
    await gw.waitForLine(/\[switchyard:upstream:old\] connected server="sse-upstream@1\.0\.0"/);
    expect(await client.callTool({ name: 'old__good' })).toMatchObject({
      content: [{ type: 'text', text: 'ok from session 1' }],
    });
    expect(`${gw.stdout()}${gw.stderr()}`).not.toMatch(SECRETS);
  });

  it('a dropped event stream ends the connection: the call fails at once, the gateway reconnects through a new initialized session, also past a refused reconnect', async () => {
    // Found from outside: EventSource reconnected by itself to a new server session the gateway never
    // initialized; and once a reconnect was refused, the upstream stayed dead while it looked ready.
    const upstream = await sseUpstream(cleanup);
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: { old: { url: upstream.url, transport: 'sse', required: true, timeoutMs: 15_000 } },
    });
    await gw.waitForLine(/\[switchyard:upstream:old\] connected/);
    const client = await connectHttp(cleanup, gw.url);
    await client.subscribeResource({ uri: 'old+note://one' });
    expect(upstream.sessions[0]!.subscribed).toEqual(['note://one']);
    /** A new session: initialized before anything but the era probe, its subscription restored. */
    const reconnected = async (count: number) => {
      await eventually(async () => (await upstreamStatus(admin, 'old')).connections === count, 'reconnect');
      const session = upstream.sessions.at(-1)!;
      expect(session.methods.find((m) => m !== 'server/discover')).toBe('initialize');
      await eventually(() => session.subscribed.includes('note://one'), 'the subscription restored');
      expect(await client.callTool({ name: 'old__good' })).toMatchObject({
        content: [{ type: 'text', text: `ok from session ${session.id}` }],
      });
    };

    // The upstream ends its stream in the middle of a call: the call fails now, not at its timeout.
    const started = Date.now();
    await expect(client.callTool({ name: 'old__drop' })).rejects.toMatchObject({
      code: -32003,
      data: { reason: 'upstream_unavailable' },
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    await reconnected(2);

    // Again, and its first reconnects are refused: the upstream is down (not ready) until one succeeds.
    upstream.refusing = true;
    await expect(client.callTool({ name: 'old__drop' })).rejects.toMatchObject({ code: -32003 });
    await eventually(() => upstream.refused >= 1, 'a refused reconnect');
    expect((await upstreamStatus(admin, 'old')).state).not.toBe('ready');
    expect((await adminGet(admin, '/readyz')).status).toBe(503);
    upstream.refusing = false;
    await reconnected(3);
    expect((await adminGet(admin, '/readyz')).status).toBe(200);
  });

  it('keeps what the upstream sends within limits.maxResultBytes, discarded as it arrives, and warns of what is no JSON-RPC', async () => {
    // Found from outside: an answer of any size passed whole, and an endless event grew memory unbounded.
    const upstream = await sseUpstream(cleanup);
    const { gw } = await startAdminGateway(cleanup, {
      limits: { maxResultBytes: MIB },
      mcpServers: { old: { url: upstream.url, transport: 'sse' } },
    });
    await gw.waitForLine(/\[switchyard:upstream:old\] connected/);
    const client = await connectHttp(cleanup, gw.url);

    const before = rssMiB(gw.pid);
    let peak = before ?? 0;
    const sample = setInterval(() => {
      peak = Math.max(peak, rssMiB(gw.pid) ?? 0);
    }, 10);
    try {
      // 160 MiB in one event: only the call it answers fails.
      await expect(client.callTool({ name: 'old__huge', arguments: { mb: 160 } })).rejects.toMatchObject({
        code: -32008,
        data: { reason: 'result_too_large', upstream: 'old', limit: MIB, bytes: expect.any(Number) },
      });
    } finally {
      clearInterval(sample);
    }
    if (before !== undefined)
      expect(peak - before, `peak RSS ${peak} MiB, ${before} before`).toBeLessThan(80);
    await gw.waitForLine(/WARN .*discarded an upstream message over limits\.maxResultBytes bytes=\d{9}/);

    // The connection stayed up (the same session), and an event that is no JSON-RPC is dropped with a warning.
    expect(await client.callTool({ name: 'old__garbage' })).toMatchObject({
      content: [{ type: 'text', text: 'after garbage' }],
    });
    await gw.waitForLine(/WARN .*dropped an SSE event that is not JSON-RPC text="this is not json \{"/);
    expect(upstream.sessions).toHaveLength(1);
  }, 60_000);
});
