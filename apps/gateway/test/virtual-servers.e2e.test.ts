import { readFile, writeFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/client';
import { WebSocketClientTransport } from '@switchyard/core/listener';
import type { TestServer } from '@switchyard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import {
  Cleanup,
  collectNotifications,
  connectHttp,
  EVERYTHING_CLI,
  eventually,
  type GatewayProcess,
  httpUpstream,
  listAll,
  nextNotification,
  spawnGateway,
  writeConfig,
} from './support/harness.js';
import { connectOverHttp, interactiveClient } from './support/interactive.js';
import { listChangedCounter } from './support/named.js';
import { connectStdio } from './support/stdio.js';

// Virtual servers (DESIGN §13) through the real CLI: two testkit upstreams (`gh`, `ci`) and the published
// server-everything (`everything`, stdio), an endpoint per team at <path>/<name> on HTTP and WebSocket and
// over stdio, official SDK clients of both eras. What a virtual server does not expose must not exist for
// its clients: not listed, refused exactly like an unknown name or URI, no notification about it.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());

let gh: TestServer;
let ci: TestServer;
let gw: GatewayProcess;
let admin = '';
let wsUrl = '';
let root = '';
let config: Record<string, unknown>;
let evSinceStart: Record<string, unknown>[] = [];

const VIRTUAL = {
  dev: {
    servers: ['gh', 'ci'],
    tools: { allow: ['gh__tool_*', 'ci__tool_0'], deny: ['gh__tool_2'] },
    prompts: { deny: ['ci__*'] },
    resources: { allow: ['gh+*'] },
  },
  ev: { servers: ['every*'], tools: { allow: ['everything__echo', 'everything__get-sum'] } },
  // Only a tool ci does not have yet (ci__tool_2).
  next: { servers: ['ci'], tools: { allow: ['ci__tool_2'] } },
};

beforeAll(async () => {
  const ghUp = await httpUpstream(shared, { name: 'gh', tools: 3, prompts: 1, resources: 3 });
  const ciUp = await httpUpstream(shared, { name: 'ci', tools: 2, prompts: 1, resources: 2 });
  gh = ghUp.server;
  ci = ciUp.server;
  config = {
    listen: { ws: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: {
      gh: { url: ghUp.url },
      ci: { url: ciUp.url },
      everything: { command: process.execPath, args: [EVERYTHING_CLI] },
    },
    virtualServers: VIRTUAL,
    // A read the root endpoint cached must not answer a virtual server that hides it.
    plugins: [['@switchyard/plugin-cache', {}]],
  };
  const started = await startAdminGateway(shared, config);
  gw = started.gw;
  admin = started.admin;
  root = gw.url;
  wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
  // server-everything registers 7 more tools once initialized and says so (tools/list_changed, re-listed
  // first and trailing): none of them is one `ev` exposes, so `ev` must never hear of it. A session from
  // the start listens for it (checked in 'notifications').
  evSinceStart = collectNotifications(
    await connectHttp(shared, at('ev')),
    'notifications/tools/list_changed' as never,
  );
}, 60_000);

const names = (items: unknown[]) => (items as { name: string }[]).map((t) => t.name).sort();
const toolsOf = async (client: Client) => names((await client.listTools()).tools);
const at = (name: string) => `${root}/${name}`;

describe('a virtual server over Streamable HTTP', () => {
  it('lists only what it exposes, where the root endpoint lists everything', async () => {
    const dev = await connectHttp(cleanup, at('dev'));
    expect(await toolsOf(dev)).toEqual(['ci__tool_0', 'gh__tool_0', 'gh__tool_1']);
    expect(names((await dev.listPrompts()).prompts)).toEqual(['gh__prompt_0']);
    const { items } = await listAll(dev);
    expect(items.map((r) => r.uri)).toEqual(['gh+test://gh/r/0', 'gh+test://gh/r/1', 'gh+test://gh/r/2']);
    const templates = await listAll(dev, 'resources/templates/list');
    expect(templates.items.map((t) => t.uriTemplate)).toEqual(['gh+test://gh/items/{id}']);

    const everything = await connectHttp(cleanup, at('ev'));
    expect(await toolsOf(everything)).toEqual(['everything__echo', 'everything__get-sum']);

    const whole = await connectHttp(cleanup, root);
    const all = await toolsOf(whole);
    expect(all).toEqual(expect.arrayContaining(['gh__tool_2', 'ci__tool_1', 'everything__echo']));
    expect(all.length).toBeGreaterThan(10);
  });

  it('refuses what it does not expose exactly as an unknown name or URI, before any upstream', async () => {
    const dev = await connectHttp(cleanup, at('dev'));
    const before = { ...gh.stats.toolCalls };
    const hidden = dev.callTool({ name: 'gh__tool_2', arguments: {} });
    const unknown = dev.callTool({ name: 'gh__tool_9', arguments: {} });
    const [h, u] = await Promise.allSettled([hidden, unknown]);
    expect(h.status).toBe('rejected');
    expect(u.status).toBe('rejected');
    const shape = (r: PromiseSettledResult<unknown>) => {
      const e = (r as PromiseRejectedResult).reason as {
        code: number;
        message: string;
        data: { reason: string };
      };
      return { code: e.code, reason: e.data.reason, message: e.message.replace(/gh__tool_\d/, 'X') };
    };
    expect(shape(h)).toEqual(shape(u));
    expect(shape(h)).toMatchObject({ code: -32602, reason: 'tool_not_found' });
    await expect(dev.getPrompt({ name: 'ci__prompt_0' })).rejects.toMatchObject({
      code: -32602,
      data: { reason: 'prompt_not_found' },
    });
    // A hidden resource reads, and subscribes, exactly like a URI no upstream owns, even once the root
    // endpoint has read it into the cache.
    const whole = await connectHttp(cleanup, root);
    expect((await whole.readResource({ uri: 'ci+test://ci/r/0' })).contents).toHaveLength(1);
    const readsBefore = ci.stats.requests['resources/read'] ?? 0;
    const readError = async (uri: string) => {
      const e = (await dev.readResource({ uri }).then(
        () => undefined,
        (error: unknown) => error,
      )) as { name: string; code: number; message: string };
      return { name: e.name, code: e.code, message: e.message.replace(uri, 'U') };
    };
    expect(await readError('ci+test://ci/r/0')).toEqual(await readError('zz+test://zz/r/0'));
    expect((await readError('ci+test://ci/r/0')).message).toMatch(/Resource not found/);
    await expect(dev.subscribeResource({ uri: 'ci+test://ci/r/1' })).rejects.toThrow(/not found/i);
    expect(gh.stats.toolCalls).toEqual(before);
    expect(ci.stats.requests['resources/read'] ?? 0).toBe(readsBefore);
    expect(ci.stats.subscribed['test://ci/r/1'] ?? 0).toBe(0);
    // What it exposes works as on the root endpoint.
    expect(await dev.callTool({ name: 'gh__tool_1', arguments: { text: 'hi' } })).toMatchObject({
      structuredContent: { tool: 'tool_1', arguments: { text: 'hi' } },
    });
    expect((await dev.readResource({ uri: 'gh+test://gh/r/1' })).contents[0]).toMatchObject({
      uri: 'gh+test://gh/r/1',
    });
  });

  it('serves 2026-07-28 clients the same part of the catalog', async () => {
    const { client } = interactiveClient('modern');
    await connectOverHttp(cleanup, client, at('dev'));
    expect(await toolsOf(client)).toEqual(['ci__tool_0', 'gh__tool_0', 'gh__tool_1']);
    await expect(client.callTool({ name: 'ci__tool_1', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      data: { reason: 'tool_not_found' },
    });
    await expect(client.readResource({ uri: 'ci+test://ci/r/0' })).rejects.toMatchObject({ code: -32602 });
  });

  it('answers 404 for a virtual server that does not exist', async () => {
    const res = await fetch(at('nope'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { data: { reason: 'not_found' } } });
  });

  it('keeps a session to its endpoint: the same session id on another path is unknown there', async () => {
    const dev = await connectHttp(cleanup, at('dev'));
    const sessionId = (dev.transport as { sessionId?: string } | undefined)?.sessionId;
    expect(sessionId).toBeDefined();
    const res = await fetch(root, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  });
});

describe('notifications', () => {
  it('reach only the endpoints that expose a name that changed', async () => {
    const session = async (url: string) => {
      const client = await connectHttp(cleanup, url);
      const tools = listChangedCounter(client, 'notifications/tools/list_changed');
      const prompts = listChangedCounter(client, 'notifications/prompts/list_changed');
      await Promise.all([tools.settle(), prompts.settle()]);
      return { tools, prompts };
    };
    const whole = await session(root);
    // dev exposes ci__tool_0 (and gh's tools and prompts), next only ci__tool_2, ev nothing of ci or gh.
    const dev = await session(at('dev'));
    const next = await session(at('next'));
    const ev = await session(at('ev'));
    // A change dev does hear, of another kind: once it has arrived, so has any tools/list_changed sent to
    // dev before it (one session, one ordered stream), and the one before was sent before it was made.
    const devBarrier = async (promptCount: number, what: string) => {
      await gh.setPromptCount(promptCount);
      await dev.prompts.next(`dev: ${what}`);
    };
    const restore = { tools: false, prompts: false };
    try {
      // ci gains ci__tool_2: the root endpoint and next hear it; dev, which exposes other tools of ci, not.
      await ci.setToolCount(3);
      restore.tools = true;
      await Promise.all([
        whole.tools.next('root: ci__tool_2 added'),
        next.tools.next('next: ci__tool_2 added'),
      ]);
      await devBarrier(2, 'gh__prompt_1 added');
      restore.prompts = true;
      expect(dev.tools.seen).toBe(0);
      // ci loses ci__tool_2 again: the same two hear it, dev still not.
      await ci.setToolCount(2);
      restore.tools = false;
      await Promise.all([
        whole.tools.next('root: ci__tool_2 removed'),
        next.tools.next('next: ci__tool_2 removed'),
      ]);
      await devBarrier(1, 'gh__prompt_1 removed');
      restore.prompts = false;
      expect(dev.tools.seen).toBe(0);
      expect(next.tools.seen).toBe(2);
      expect(next.prompts.seen).toBe(0);
      // ev has no change of its own to wait for: it heard nothing of ci or gh, nor, since the gateway
      // started, of server-everything's tools added after initialize.
      expect([ev.tools.seen, ev.prompts.seen]).toEqual([0, 0]);
      expect(evSinceStart).toEqual([]);
    } finally {
      // Restored even when this test fails, so the later tests' lists are not wrong because of it.
      if (restore.tools) await ci.setToolCount(2);
      if (restore.prompts) await gh.setPromptCount(1);
    }
  });

  it('delivers resources/updated for a resource the endpoint exposes', async () => {
    const dev = await connectHttp(cleanup, at('dev'));
    await dev.subscribeResource({ uri: 'gh+test://gh/r/0' });
    const updated = nextNotification(dev, 'notifications/resources/updated');
    await gh.triggerUpdated('test://gh/r/0');
    expect(await updated).toMatchObject({ uri: 'gh+test://gh/r/0' });
  });
});

describe('other transports', () => {
  it('serves a virtual server on WebSocket at <path>/<name>', async () => {
    const client = new Client({ name: 'ws-dev', version: '1.0.0' });
    await client.connect(new WebSocketClientTransport(new URL(`${wsUrl}/dev`)));
    cleanup.add(() => client.close());
    expect(await toolsOf(client)).toEqual(['ci__tool_0', 'gh__tool_0', 'gh__tool_1']);
  });

  it('serves one over stdio with --virtual-server; an unknown name is a clear startup error', async () => {
    const file = await writeConfig(cleanup, { ...config, listen: undefined });
    const { client } = await connectStdio(cleanup, file, { args: ['--virtual-server', 'ev'] });
    expect(await toolsOf(client)).toEqual(['everything__echo', 'everything__get-sum']);
    const wrong = spawnGateway(cleanup, ['--config', file, '--virtual-server', 'nope']);
    expect(await wrong.exited).toBe(2);
    expect(wrong.stderr()).toMatch(
      /--virtual-server nope: .* has no virtual server of that name \(it has dev, ev, next\)/,
    );
  });
});

describe('operations', () => {
  it('lists the virtual servers with their counts on /admin/status', async () => {
    const status = await adminGet(admin, '/admin/status');
    expect(status.json.virtualServers).toEqual([
      expect.objectContaining({
        name: 'dev',
        servers: ['gh', 'ci'],
        tools: 3,
        prompts: 1,
        toolSearch: false,
      }),
      expect.objectContaining({
        name: 'ev',
        servers: ['everything'],
        tools: 2,
        urls: expect.arrayContaining([`${root}/ev`]),
      }),
      expect.objectContaining({ name: 'next', servers: ['ci'], tools: 0 }),
    ]);
  });

  it('a reload adds, changes and removes virtual servers; the other endpoints keep their sessions', async () => {
    const own = new Cleanup();
    try {
      // Without server-everything: it announces tools of its own a while after it connects, which the root
      // session could not tell from an announcement of the reload (the assertion below). `ev` exposes a
      // ci tool instead, to be removed.
      const { everything: _late, ...steady } = config.mcpServers as Record<string, unknown>;
      const started = await startAdminGateway(own, {
        ...config,
        mcpServers: steady,
        virtualServers: { ...VIRTUAL, ev: { servers: ['ci'], tools: { allow: ['ci__tool_1'] } } },
      });
      // Every upstream up first: one connecting late (a loaded machine) is announced to every endpoint.
      await eventually(async () => {
        const { upstreams } = (await adminGet(started.admin, '/admin/status')).json as {
          upstreams: { state: string }[];
        };
        return upstreams.every((u) => u.state === 'ready');
      }, 'every upstream ready');
      const base = started.gw.url;
      const whole = await connectHttp(own, base);
      // The root's definition does not change: it hears none of the reload (found from outside: every
      // endpoint heard every list change).
      const wholeTools = listChangedCounter(whole, 'notifications/tools/list_changed');
      const wholePrompts = listChangedCounter(whole, 'notifications/prompts/list_changed');
      await Promise.all([wholeTools.settle(), wholePrompts.settle()]);
      const heardBefore = wholeTools.seen;
      const dev = await connectHttp(own, `${base}/dev`);
      const ev = await connectHttp(own, `${base}/ev`);
      const next = JSON.parse(await readFile(started.gw.file, 'utf8')) as Record<string, unknown>;
      next.virtualServers = {
        dev: { ...VIRTUAL.dev, tools: { allow: ['gh__tool_0'] } },
        ops: { servers: ['ci'] },
      };
      const changed = nextNotification(dev, 'notifications/tools/list_changed' as never);
      await writeFile(started.gw.file, JSON.stringify(next));
      await started.gw.waitForLine(/reload applied: .*virtualServers/);
      await changed;
      // A change the root does hear, on the same ordered stream: anything sent to it before has arrived.
      await ci.setPromptCount(2);
      try {
        await wholePrompts.next('root: ci__prompt_1 added');
        expect(wholeTools.seen).toBe(heardBefore);
      } finally {
        await ci.setPromptCount(1);
      }
      expect(await toolsOf(dev)).toEqual(['gh__tool_0']);
      const ops = await connectHttp(own, `${base}/ops`);
      expect(await toolsOf(ops)).toEqual(['ci__tool_0', 'ci__tool_1']);
      await expect(ev.listTools()).rejects.toThrow();
      expect(await toolsOf(whole)).toEqual([
        'ci__tool_0',
        'ci__tool_1',
        'gh__tool_0',
        'gh__tool_1',
        'gh__tool_2',
      ]);
      const listed = await adminGet(started.admin, '/admin/status');
      expect((listed.json.virtualServers as { name: string }[]).map((v) => v.name)).toEqual(['dev', 'ops']);
    } finally {
      await own.run();
    }
  });
});
