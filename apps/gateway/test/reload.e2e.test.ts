import { rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  collectNotifications,
  connectHttp,
  eventually,
  httpUpstream,
  spawnGateway,
  startGateway,
  TESTKIT_CLI,
  writeConfig,
} from './support/harness.js';
import { errorOf, names } from './support/named.js';

// Hot reload (DESIGN §10) through the CLI: the config file is rewritten under a running gateway.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const ALICE = 'alice-token-0123456789';
const BOB_OLD = 'bob-old-token-0123456789';
const BOB_NEW = 'bob-new-token-0123456789';
const DENY_PLUGIN = fileURLToPath(new URL('./fixtures/deny-plugin.js', import.meta.url));

function config(
  servers: Record<string, string>,
  bobToken: string,
  limits?: Record<string, number>,
  deny = '/r/1',
) {
  return {
    listen: {
      http: { host: '127.0.0.1', port: 0, path: '/mcp' },
      admin: { host: '127.0.0.1', port: 0 },
    },
    mcpServers: Object.fromEntries(Object.entries(servers).map(([name, url]) => [name, { url }])),
    clients: { alice: { token: ALICE, groups: ['admins'] }, bob: { token: bobToken } },
    plugins: [[DENY_PLUGIN, { contains: deny }]],
    ...(limits ? { limits } : {}),
  };
}

/** The HTTP status of an `initialize` sent with `token` (padded to `padding` bytes of extra params). */
async function initializeStatus(url: string, token: string, padding = 0): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
        ...(padding > 0 ? { padding: 'x'.repeat(padding) } : {}),
      },
    }),
  });
  await res.body?.cancel();
  return res.status;
}

describe('config reload', () => {
  it('applies upstream, token, limit and plugin changes live, refuses an invalid file, and reloads on SIGHUP', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', tools: 1, resources: 3, pageSize: 1 });
    const b = await httpUpstream(cleanup, { name: 'b', tools: 1, resources: 1 });
    const c = await httpUpstream(cleanup, { name: 'c', tools: 1, resources: 1 });
    const gw = await startGateway(cleanup, config({ a: a.url, b: b.url }, BOB_OLD));
    const admin = (await gw.waitForLine(/admin listening on (http:\/\/\S+)/))[1]!;
    const client = await connectHttp(cleanup, gw.url, 'reload-client', { token: ALICE });
    let toolsChanged = 0;
    let wake = () => {};
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      toolsChanged += 1;
      wake();
    });
    const toolsChangedAgain = (seen: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no tools/list_changed within 10 s')), 10_000);
        wake = () => {
          if (toolsChanged <= seen) return;
          clearTimeout(timer);
          resolve();
        };
        wake();
      });
    const toolNames = async () => names((await client.listTools()).tools as Record<string, unknown>[]);
    expect(await toolNames()).toEqual(['a__tool_0', 'b__tool_0']);
    // The SDK's listResources() walks every page itself: ask for the first one only.
    const firstPage = (await client.request({ method: 'resources/list', params: {} })) as {
      nextCursor?: string;
    };
    expect(firstPage.nextCursor).toBeDefined();

    expect(await initializeStatus(gw.url, ALICE, 8000)).toBe(200);
    const readReason = (uri: string) =>
      client.readResource({ uri }).then(
        () => 'ok',
        (error: { data?: { reason?: string } }) => error.data?.reason,
      );
    expect(await readReason('a+test://a/r/1')).toBe('forbidden');
    expect(await readReason('a+test://a/r/2')).toBe('ok');

    // Remove b, add c, change bob's token, a limit and the plugin's options: written in place.
    const seen = toolsChanged;
    await writeFile(
      gw.file,
      JSON.stringify(config({ a: a.url, c: c.url }, BOB_NEW, { maxBodyBytes: 4096 }, '/r/2')),
    );
    await gw.waitForLine(/reload applied: \+c -b clients limits plugins trigger="file change"/);
    // The plugin set up with the new options answers from the first request after the reload.
    expect(await readReason('a+test://a/r/2')).toBe('forbidden');
    expect(await readReason('a+test://a/r/1')).toBe('ok');
    await toolsChangedAgain(seen);
    // b's removal and c's connection each announce a change (they coalesce only when c connects within
    // the debounce window): wait, change by change, for the one after which c is listed.
    for (;;) {
      const count = toolsChanged;
      if ((await toolNames()).includes('c__tool_0')) break;
      await toolsChangedAgain(count);
    }
    // The same session sees the new set.
    expect(await toolNames()).toEqual(['a__tool_0', 'c__tool_0']);
    const called = await client.callTool({ name: 'c__tool_0', arguments: {} });
    expect(called.isError).not.toBe(true);
    // A cursor from before the server set changed: list again.
    expect(
      await errorOf(client.request({ method: 'resources/list', params: { cursor: firstPage.nextCursor } })),
    ).toMatchObject({
      code: -32602,
      data: { reason: 'invalid_cursor' },
      message: expect.stringMatching(/List again/),
    });
    expect(await initializeStatus(gw.url, BOB_OLD)).toBe(401);
    expect(await initializeStatus(gw.url, BOB_NEW)).toBe(200);
    expect(await initializeStatus(gw.url, ALICE, 8000)).toBe(413);

    // An invalid file is refused with the file, the JSON path and the problem; the running config stays.
    await writeFile(
      gw.file,
      JSON.stringify({
        ...config({ a: a.url }, BOB_NEW, { maxBodyBytes: 4096 }, '/r/2'),
        mcpServers: { a: { url: 5 } },
      }),
    );
    const refused = await gw.waitForLine(/reload refused; the running config stays: Invalid config (\S+):/);
    expect(refused[1]).toBe(gw.file);
    await gw.waitForLine(/^\s+- \$\.mcpServers\.a\S*:/);
    expect(await toolNames()).toEqual(['a__tool_0', 'c__tool_0']);

    // Saved the way editors do (a new file renamed over the old one): b is back.
    await writeFile(
      `${gw.file}.tmp`,
      JSON.stringify(config({ a: a.url, b: b.url, c: c.url }, BOB_NEW, { maxBodyBytes: 4096 }, '/r/2')),
    );
    await rename(`${gw.file}.tmp`, gw.file);
    await gw.waitForLine(/reload applied: \+b trigger="file change"/);
    const all = ['a__tool_0', 'b__tool_0', 'c__tool_0'].join();
    await eventually(async () => (await toolNames()).join() === all || undefined, 'b listed again');

    // SIGHUP re-reads the file; nothing changed.
    gw.signal('SIGHUP');
    await gw.waitForLine(/reload applied: no changes trigger="SIGHUP"/);
    expect(gw.running()).toBe(true);
    const status = await fetch(new URL('/admin/status', admin), {
      headers: { authorization: `Bearer ${ALICE}` },
    });
    const { reloads } = (await status.json()) as { reloads: Record<string, unknown>[] };
    expect(reloads.map((r) => r.outcome)).toEqual(['applied', 'applied', 'refused', 'applied']);
    expect(reloads[3]).toMatchObject({ added: ['c'], removed: ['b'], changed: [] });
    expect(reloads[2]?.error).toMatch(/\$\.mcpServers\.a/);
  }, 30_000);

  it("releases a removed server's subscriptions when their holders let go, and re-establishes only what is still held when it is back", async () => {
    // Found from outside: an unsubscribe while a reload had removed its server was refused (-32002, "No
    // configured upstream owns this URI"), a listen stream closed then kept its subscription too, and when
    // the server was added back the gateway subscribed both again and the session still got their updates.
    const a = await httpUpstream(cleanup, { name: 'a', resources: 1 });
    const hb = await httpUpstream(cleanup, { name: 'hb', resources: 5 });
    const withHb = (present: boolean) => ({
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' }, admin: { host: '127.0.0.1', port: 0 } },
      mcpServers: { a: { url: a.url }, ...(present ? { hb: { url: hb.url } } : {}) },
    });
    const gw = await startGateway(cleanup, withHb(true));
    const admin = (await gw.waitForLine(/admin listening on (http:\/\/\S+)/))[1]!;
    const held = async () => {
      const status = await fetch(new URL('/admin/status', admin));
      return ((await status.json()) as { subscriptions: number }).subscriptions;
    };
    const bob = await connectHttp(cleanup, gw.url, 'bob');
    const updates = collectNotifications(bob, 'notifications/resources/updated');
    await bob.subscribeResource({ uri: 'hb+test://hb/r/3' });
    await bob.subscribeResource({ uri: 'hb+test://hb/r/4' });
    const carol = new Client({ name: 'carol', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await carol.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
    cleanup.add(() => carol.close());
    const listening = await carol.listen({ resourceSubscriptions: ['hb+test://hb/r/2'] });
    await eventually(() => hb.server.stats.subscribed['test://hb/r/2'] === 1 || undefined, 'the listen');
    expect(await held()).toBe(3);

    await writeFile(gw.file, JSON.stringify(withHb(false)));
    await gw.waitForLine(/reload applied: -hb trigger="file change"/);
    // Held by the session: released though no upstream owns the URI now; one it never held is still refused.
    await expect(bob.unsubscribeResource({ uri: 'hb+test://hb/r/3' })).resolves.toEqual({});
    expect(await errorOf(bob.unsubscribeResource({ uri: 'hb+test://hb/r/1' }))).toMatchObject({
      message: expect.stringMatching(/No configured upstream owns this URI/),
    });
    await listening.close();
    await eventually(async () => (await held()) === 1 || undefined, 'the listen stream to let go');

    const calls = hb.server.stats.subscribeCalls;
    await writeFile(gw.file, JSON.stringify(withHb(true)));
    await gw.waitForLine(/reload applied: \+hb trigger="file change"/);
    // What bob still holds is re-established on the server added back, and nothing else.
    await eventually(() => hb.server.stats.subscribeCalls === calls + 1 || undefined, 'the re-subscribe');
    expect(hb.server.stats.requests['resources/subscribe']).toBe(calls + 1);
    for (const uri of ['test://hb/r/3', 'test://hb/r/2', 'test://hb/r/4'])
      await hb.server.triggerUpdated(uri);
    await eventually(() => updates.length > 0 || undefined, "r/4's update");
    // One session's notifications arrive in order: had r/3 been followed still, its update came first.
    expect(updates).toEqual([{ uri: 'hb+test://hb/r/4' }]);
    expect(await held()).toBe(1);
    await bob.unsubscribeResource({ uri: 'hb+test://hb/r/4' });
    expect(await held()).toBe(0);
  });

  it('a SIGHUP and an edit while the upstreams still connect are applied once it serves, never lost or fatal', async () => {
    // Found from outside: SIGHUP during the start ended the gateway (Node's default action), and an edit
    // saved then was never applied (the watch was armed after the listeners opened).
    const up = await httpUpstream(cleanup, { name: 'a', tools: 1 });
    const first = {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: {
        a: { url: up.url },
        // Holds the start up to its timeoutMs: it never answers its handshake.
        slow: {
          command: process.execPath,
          args: [TESTKIT_CLI, '--stdio', '--misbehave', 'hang-handshake'],
          timeoutMs: 4000,
        },
      },
    };
    const file = await writeConfig(cleanup, first);
    const gw = spawnGateway(cleanup, ['--config', file]);
    await gw.waitForLine(/\[switchyard:upstream:a\] connected/);
    expect(gw.stderr()).not.toMatch(/listening on/);
    gw.signal('SIGHUP');
    await writeFile(file, JSON.stringify({ ...first, virtualServers: { team: { servers: ['a'] } } }));
    const [, url] = await gw.waitForLine(/listening on (http:\/\/\S+)/);
    await gw.waitForLine(/reload applied: .*virtualServers.*during start/);
    const team = await connectHttp(cleanup, `${url}/team`);
    expect((await team.listTools()).tools.map((t) => t.name)).toEqual(['a__tool_0']);
    expect(gw.running()).toBe(true);
  });
});
