import { openStore, silentLogger } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet } from './support/admin.js';
import { Cleanup, connectHttp, eventually, httpUpstream } from './support/harness.js';
import { replicasMissing, startReplicas } from './support/replicas.js';

// @switchyard/plugin-approve on two gateway replicas sharing one redis-server (store.redis): a call held
// on one replica is listed and decided on the other's admin listener (open: loopback, no identities).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

if (replicasMissing) console.warn(`skipping the replicated approvals test: ${replicasMissing}`);

async function post(base: string, path: string, body: unknown) {
  const res = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.status;
}

describe.skipIf(replicasMissing !== undefined)('approvals across replicas', () => {
  it('a call held on one replica is listed and decided on another, once', async () => {
    const up = await httpUpstream(cleanup, { name: 'db', tools: 1 });
    const { replicas } = await startReplicas(cleanup, {
      config: {
        mcpServers: { db: { url: up.url } },
        plugins: [['@switchyard/plugin-approve', { rules: [{ tools: ['db__*'], by: ['leads'] }] }]],
      },
      admin: true,
    });
    const [holder, other] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const client = await connectHttp(cleanup, `http://127.0.0.1:${holder.port}/mcp`, 'replicas-approvals');
    const calls = () => up.server.stats.toolCalls.tool_0 ?? 0;

    const pendingOn = async (base: string) => {
      let pending: { id: string; identity: string; tool: string }[] = [];
      await eventually(async () => {
        pending = (await adminGet(base, '/admin/approvals')).json.pending as typeof pending;
        return pending.length === 1;
      }, `the held call listed on ${base}`);
      return pending[0]!;
    };

    const approved = client.callTool(
      { name: 'db__tool_0', arguments: { text: 'drop' } },
      { timeout: 20_000 },
    );
    approved.catch(() => undefined);
    const seen = await pendingOn(other.adminUrl!);
    expect(seen).toMatchObject({ tool: 'db__tool_0' });
    expect(calls()).toBe(0);
    expect(await post(other.adminUrl!, `/admin/approvals/${seen.id}`, { decision: 'approve' })).toBe(200);
    expect((await approved).structuredContent).toMatchObject({ tool: 'tool_0' });
    expect(calls()).toBe(1);
    // Decided once, whichever replica is asked next: the holder says it was (409).
    expect(await post(holder.adminUrl!, `/admin/approvals/${seen.id}`, { decision: 'deny' })).toBe(409);
    await eventually(
      async () =>
        ((await adminGet(other.adminUrl!, '/admin/approvals')).json.pending as unknown[]).length === 0,
      'the decided call gone from the other replica',
    );

    const denied = client.callTool({ name: 'db__tool_0', arguments: { text: 'again' } }, { timeout: 20_000 });
    denied.catch(() => undefined);
    const second = await pendingOn(other.adminUrl!);
    expect(await post(other.adminUrl!, `/admin/approvals/${second.id}`, { decision: 'deny' })).toBe(200);
    await expect(denied).rejects.toMatchObject({ code: -32013, data: { reason: 'approval_denied' } });
    expect(calls()).toBe(1);
  });

  it('whoever writes to Redis without the cursorSecret can neither decide a held call nor stop a replica', async () => {
    const up = await httpUpstream(cleanup, { name: 'db', tools: 1 });
    const { redis, replicas } = await startReplicas(cleanup, {
      config: {
        mcpServers: { db: { url: up.url } },
        plugins: [['@switchyard/plugin-approve', { rules: [{ tools: ['db__*'], by: ['leads'] }] }]],
      },
      admin: true,
    });
    const [holder, other] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const client = await connectHttp(cleanup, `http://127.0.0.1:${holder.port}/mcp`, 'replicas-forgery');
    const held = client.callTool({ name: 'db__tool_0', arguments: { text: 'drop' } }, { timeout: 20_000 });
    held.catch(() => undefined);
    let id = '';
    await eventually(async () => {
      const pending = (await adminGet(other.adminUrl!, '/admin/approvals')).json.pending as { id: string }[];
      id = pending[0]?.id ?? '';
      return id !== '';
    }, 'the held call listed on the other replica');

    // The plugin's channel as a replica without the secret (any Redis client) writes to it.
    const intruder = await openStore({ redis: { url: redis.url } }, silentLogger);
    cleanup.add(() => intruder.dispose());
    const channel = intruder.scoped('plugin:@switchyard/plugin-approve:').pubsub!;
    await channel.publish(
      'approvals',
      JSON.stringify({ t: 'decide', id, decision: 'approve', approver: 'the-ceo' }),
    );
    await channel.publish('approvals', 'null');
    await channel.publish('approvals', JSON.stringify({ t: 'held', approval: null }));
    // Published after them: each replica hears this decision after the forged ones.
    expect(await post(other.adminUrl!, `/admin/approvals/${id}`, { decision: 'deny' })).toBe(200);
    await expect(held).rejects.toMatchObject({ code: -32013, data: { reason: 'approval_denied' } });
    expect(up.server.stats.toolCalls.tool_0 ?? 0).toBe(0);
    expect(holder.gateway.stderr()).toContain('dropped a store message no replica signed');
    for (const replica of replicas) {
      expect((await adminGet(replica.adminUrl!, '/admin/approvals')).status).toBe(200);
    }
  });
});
