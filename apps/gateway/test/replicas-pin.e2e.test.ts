import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { openStore, silentLogger } from '@switchyard/core';
import { freePort, redisMissing, startRedis } from '@switchyard/testkit/process';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, connectHttp, eventually, httpUpstream, tempDir } from './support/harness.js';

// @switchyard/plugin-pin in two gateway CLI processes sharing one redis-server (DESIGN §12), each
// with its own lock file: the pins live in the store too, so an approval on one replica applies on
// the other (and rewrites its lock file). Without a reachable store, each replica pins on its own.

if (redisMissing()) console.warn(`skipping the replicated pin tests: ${redisMissing()}`);

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const listed = async (client: Client) =>
  ((await client.request({ method: 'tools/list', params: {} })).tools as { name: string }[]).map(
    (t) => t.name,
  );

async function approve(admin: string, name: string) {
  const res = await fetch(new URL('/admin/pins/approve', admin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  return res.status;
}

describe('pins across replicas', () => {
  it.skipIf(redisMissing())(
    'an approval on replica A applies on replica B within 2 s, and B rewrites its own lock file',
    async () => {
      const redis = await startRedis();
      cleanup.add(() => redis.stop());
      const { server: upstream, url } = await httpUpstream(cleanup, { name: 'docs', tools: 1 });
      const dir = await tempDir(cleanup);
      // Separate lock files (as on separate hosts); both pin tool_0 already.
      const lockA = join(dir, 'a.lock.json');
      const lockB = join(dir, 'b.lock.json');
      const replica = (lockFile: string) =>
        startAdminGateway(cleanup, {
          mcpServers: { docs: { url } },
          store: { redis: { url: redis.url } },
          plugins: [['@switchyard/plugin-pin', { lockFile }]],
        });
      const a = await replica(lockA);
      const onA = await connectHttp(cleanup, a.gw.url, 'client-a');
      expect(await listed(onA)).toEqual(['docs__tool_0']); // trust on first use, shared through the store
      await eventually(
        async () => (await readFile(lockA, 'utf8').catch(() => '')).includes('tool_0'),
        'A pinned',
      );
      // B starts without a lock file: it takes the store's pins (no trust on first use of its own).
      const b = await replica(lockB);
      const onB = await connectHttp(cleanup, b.gw.url, 'client-b');
      await upstream.setToolCount(2);
      expect(await listed(onA)).toEqual(['docs__tool_0']);
      expect(await listed(onB)).toEqual(['docs__tool_0']);
      expect(JSON.parse(await readFile(lockB, 'utf8')).servers.docs.tools.tool_1).toBeUndefined();

      expect(await approve(a.admin, 'docs__tool_1')).toBe(200);
      const approved = Date.now();
      await eventually(async () => (await listed(onB)).length === 2, 'the approval applied on B', 2000);
      expect(Date.now() - approved).toBeLessThan(2000);
      expect(await listed(onB)).toEqual(['docs__tool_0', 'docs__tool_1']);
      expect(
        await onB.request({ method: 'tools/call', params: { name: 'docs__tool_1', arguments: {} } }),
      ).toMatchObject({
        structuredContent: { tool: 'tool_1' },
      });
      // B's own lock file follows, so a restart of B keeps the approval.
      await eventually(
        async () => JSON.parse(await readFile(lockB, 'utf8')).servers.docs.tools.tool_1 !== undefined,
        "B's lock file rewritten",
        2000,
      );
      expect(JSON.parse(await readFile(lockB, 'utf8'))).toEqual(JSON.parse(await readFile(lockA, 'utf8')));
      expect(await a.gw.stop()).toBe(0);
      expect(await b.gw.stop()).toBe(0);
    },
  );

  it.skipIf(redisMissing())(
    'pins a Redis writer sets without the cursorSecret are ignored, also when a signed message is replayed',
    async () => {
      // Found from outside: the pins a replica applies from the store were whatever a Redis writer SET,
      // and a captured pin message replayed made every replica apply them at once.
      const secret = 'pin-replicas-secret-0123456789';
      const redis = await startRedis();
      cleanup.add(() => redis.stop());
      const { url } = await httpUpstream(cleanup, { name: 'docs', tools: 1 });
      const dir = await tempDir(cleanup);
      const replica = (lockFile: string) =>
        startAdminGateway(cleanup, {
          mcpServers: { docs: { url } },
          cursorSecret: secret,
          store: { redis: { url: redis.url } },
          plugins: [['@switchyard/plugin-pin', { lockFile }]],
        });
      const a = await replica(join(dir, 'a.lock.json'));
      const onA = await connectHttp(cleanup, a.gw.url, 'client-a');
      expect(await listed(onA)).toEqual(['docs__tool_0']);
      const b = await replica(join(dir, 'b.lock.json'));
      const onB = await connectHttp(cleanup, b.gw.url, 'client-b');
      expect(await listed(onB)).toEqual(['docs__tool_0']);

      const scope = 'plugin:@switchyard/plugin-pin:';
      const intruder = await openStore({ redis: { url: redis.url } }, silentLogger);
      cleanup.add(() => intruder.dispose());
      const signed = await openStore({ redis: { url: redis.url } }, silentLogger, secret);
      cleanup.add(() => signed.dispose());
      const pins = JSON.parse((await signed.scoped(scope).get('lock'))!) as {
        servers: { docs: { tools: Record<string, string> } };
      };
      pins.servers.docs.tools.tool_0 = `sha256:${'0'.repeat(64)}`;
      await intruder.scoped(scope).set('lock', JSON.stringify(pins));
      await signed.scoped(scope).pubsub!.publish('lock', JSON.stringify({ from: 'replayed' }));
      await b.gw.waitForLine(/ignored a store value no replica signed/);
      expect(await listed(onB)).toEqual(['docs__tool_0']);
      expect(await listed(onA)).toEqual(['docs__tool_0']);
    },
  );

  it('without a reachable store (onUnavailable local), each replica pins on its own', async () => {
    const { url } = await httpUpstream(cleanup, { name: 'docs', tools: 1 });
    const dir = await tempDir(cleanup);
    const lockFile = join(dir, 'pins.json');
    writeFileSync(lockFile, JSON.stringify({ version: 1, servers: { docs: { tools: {} } } }));
    const nobody = await freePort();
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: { docs: { url } },
      store: { redis: { url: `redis://127.0.0.1:${nobody}`, onUnavailable: 'local' } },
      plugins: [['@switchyard/plugin-pin', { lockFile }]],
    });
    const client = await connectHttp(cleanup, gw.url);
    expect(await listed(client)).toEqual([]);
    expect((await adminGet(admin, '/admin/status')).json.pins).toMatchObject({
      quarantined: [{ name: 'docs__tool_0', status: 'new' }],
    });
    expect(await approve(admin, 'docs__tool_0')).toBe(200);
    expect(await listed(client)).toEqual(['docs__tool_0']);
    expect(JSON.parse(await readFile(lockFile, 'utf8')).servers.docs.tools.tool_0).toMatch(/^sha256:/);
    expect(await gw.stop()).toBe(0);
  });
});
