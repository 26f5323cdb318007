import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import {
  CORE_VERSION,
  Gateway,
  type Identity,
  PluginError,
  setupPlugins,
  silentLogger,
} from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, listAll, startGateway } from './support/harness.js';

// The plugin contract: what every Switchyard plugin — the four first-party ones, the documented
// example, an in-house one loaded by path — must do, checked the same way for each:
//  1. default-export a definePlugin() whose core range accepts this core, and set up with its options;
//  2. declare its options with a schema, so the host refuses bad ones at start-up with
//     PLUGIN_INVALID_OPTIONS naming the plugin and the option's path;
//  3. when its policy permits everything, be invisible: the same results, errors (codes and reasons)
//     and notifications as a gateway without it, for lists, templates, reads, subscriptions, tools,
//     prompts and completions;
//  4. keep serving after a cancelled request, and close cleanly (twice is harmless);
//  5. load from a config by package name or path, stacked with all the others, in the real CLI.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const EXAMPLE = here('../../../docs/examples/read-quota/index.js');
const DENY_FIXTURE = here('./fixtures/deny-plugin.js');

interface ContractCase {
  name: string;
  /** How a config names it (package name, or a path). */
  specifier: string;
  load(): Promise<unknown>;
  /** Options under which the plugin permits everything. */
  permissive(dir: string): Record<string, unknown>;
  /** Options its schema must refuse, and the option path the error must name. */
  bad?: { options: Record<string, unknown>; mentions: string };
}

// In the recommended stack order (audit outermost, access before cache), which the CLI test loads as is.
const CASES: ContractCase[] = [
  {
    name: 'audit',
    specifier: '@switchyard/plugin-audit',
    load: () => import('@switchyard/plugin-audit'),
    permissive: (dir) => ({ file: join(dir, 'audit.jsonl') }),
    bad: { options: { fsync: 'sometimes' }, mentions: 'options.file' },
  },
  {
    name: 'rate-limit',
    specifier: '@switchyard/plugin-rate-limit',
    load: () => import('@switchyard/plugin-rate-limit'),
    permissive: () => ({
      perClient: { requestsPerSecond: 10_000, burst: 10_000 },
      perUpstream: { concurrency: 16, maxQueue: 1_000 },
    }),
    bad: {
      options: { perClient: { requestsPerSecond: 0, burst: 1 } },
      mentions: 'options.perClient.requestsPerSecond',
    },
  },
  {
    name: 'access',
    specifier: '@switchyard/plugin-access',
    load: () => import('@switchyard/plugin-access'),
    permissive: () => ({ default: 'allow', rules: [{ effect: 'deny', clients: ['nobody-at-all'] }] }),
    bad: { options: { default: 'maybe', rules: [] }, mentions: 'options.default' },
  },
  {
    name: 'cache',
    specifier: '@switchyard/plugin-cache',
    load: () => import('@switchyard/plugin-cache'),
    permissive: () => ({}),
    bad: { options: { maxBytes: -1 }, mentions: 'options.maxBytes' },
  },
  {
    name: 'docs example (read-quota)',
    specifier: EXAMPLE,
    load: () => import(EXAMPLE),
    permissive: () => ({ bytesPerWindow: 1_000_000_000 }),
    bad: { options: { bytesPerWindow: 0 }, mentions: 'options.bytesPerWindow' },
  },
  {
    name: 'in-house fixture (deny)',
    specifier: DENY_FIXTURE,
    load: () => import(DENY_FIXTURE),
    permissive: () => ({ contains: 'matches-no-uri' }),
  },
];

const ALICE: Identity = { id: 'alice', groups: ['platform'], anonymous: false };

async function upstream(): Promise<{ url: string; server: TestServer }> {
  const server = new TestServer({
    name: 'docs',
    resources: 7,
    pageSize: 3,
    templates: 2,
    tools: 4,
    behaviorTools: true,
    prompts: 2,
  });
  const { url } = await server.listenHttp();
  cleanup.add(() => server.close());
  return { url, server };
}

async function gatewayWith(url: string, plugins: Awaited<ReturnType<typeof setupPlugins>>) {
  const gateway = new Gateway({
    upstreams: [
      { name: 'docs', prefix: true, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } },
    ],
    plugins,
    logger: silentLogger,
  });
  cleanup.add(() => gateway.close());
  await gateway.start();
  const { client, close } = await connectInMemoryClient(gateway, { identity: ALICE, name: 'contract' });
  cleanup.add(close);
  return { gateway, client };
}

/** A scripted session; every outcome (result or error code/reason) is recorded for comparison. */
async function script(client: Client, server: TestServer): Promise<unknown[]> {
  const seen: unknown[] = [];
  const record = async (method: string, params: Record<string, unknown>) => {
    try {
      seen.push({ method, result: await client.request({ method, params } as never) });
    } catch (error) {
      const e = error as { code?: number; data?: { reason?: unknown } };
      seen.push({ method, error: e.code, reason: e.data?.reason });
    }
  };
  let cursor: string | undefined;
  do {
    const page = (await client.request({ method: 'resources/list', params: cursor ? { cursor } : {} })) as {
      resources: unknown[];
      nextCursor?: string;
    };
    seen.push({ method: 'resources/list', resources: page.resources, more: Boolean(page.nextCursor) });
    cursor = page.nextCursor;
  } while (cursor);
  await record('resources/templates/list', {});
  await record('resources/read', { uri: 'docs+test://docs/r/2' });
  await record('resources/read', { uri: 'docs+test://docs/r/2' });
  await record('resources/read', { uri: 'docs+test://docs/items/42' });
  await record('resources/read', { uri: 'docs+test://docs/missing' });
  await record('resources/read', { uri: 'elsewhere+test://x' });
  await record('completion/complete', {
    ref: { type: 'ref/resource', uri: 'docs+test://docs/items/{id}' },
    argument: { name: 'id', value: 'a' },
  });
  for (const [method, field] of [
    ['tools/list', 'tools'],
    ['prompts/list', 'prompts'],
  ] as const) {
    let next: string | undefined;
    do {
      const page = (await client.request({ method, params: next ? { cursor: next } : {} })) as Record<
        string,
        unknown
      >;
      next = page.nextCursor as string | undefined;
      seen.push({ method, items: page[field], more: Boolean(next) });
    } while (next);
  }
  await record('tools/call', { name: 'docs__tool_1', arguments: { text: 'x' } });
  await record('tools/call', { name: 'docs__tool_1', arguments: { text: 'x' } });
  await record('tools/call', { name: 'docs__link', arguments: {} });
  await record('tools/call', { name: 'docs__fail', arguments: {} });
  await record('tools/call', { name: 'docs__throw', arguments: {} });
  await record('tools/call', { name: 'docs__missing', arguments: {} });
  await record('prompts/get', { name: 'docs__prompt_1', arguments: { topic: 't' } });
  await record('prompts/get', { name: 'docs__missing' });
  await record('completion/complete', {
    ref: { type: 'ref/prompt', name: 'docs__prompt_0' },
    argument: { name: 'topic', value: '' },
  });
  const updated = new Promise<unknown>((resolve) =>
    client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params)),
  );
  await record('resources/subscribe', { uri: 'docs+test://docs/r/1' });
  await server.triggerUpdated('test://docs/r/1');
  seen.push({ notification: await updated });
  await record('resources/unsubscribe', { uri: 'docs+test://docs/r/1' });
  return seen;
}

describe.each(CASES)('plugin contract: $name', (c) => {
  it('default-exports a plugin for this core that sets up with its options', async () => {
    const module = (await c.load()) as { default?: { name?: unknown; core?: unknown } };
    const plugin = module.default;
    expect(typeof plugin?.name).toBe('string');
    expect(typeof plugin?.core).toBe('string');
    // setupPlugins refuses a core range that excludes this core (PLUGIN_INCOMPATIBLE).
    expect(CORE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    const dir = await mkdtemp(join(tmpdir(), 'sy-contract-'));
    cleanup.add(() => rm(dir, { recursive: true, force: true }));
    const loaded = await setupPlugins(
      [{ plugin, options: c.permissive(dir), source: c.specifier }],
      silentLogger,
    );
    expect(loaded.map((p) => p.name)).toEqual([plugin?.name]);
  });

  // (A plugin without options, like the deny fixture, has nothing to refuse.)
  const bad = c.bad;
  if (bad) {
    it('refuses bad options at start-up, naming the option', async () => {
      const { default: plugin } = (await c.load()) as { default: unknown };
      const error = await setupPlugins(
        [{ plugin, options: bad.options, source: c.specifier }],
        silentLogger,
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PluginError);
      expect((error as PluginError).code).toBe('PLUGIN_INVALID_OPTIONS');
      const { message } = error as PluginError;
      expect(message.startsWith(`Plugin ${(plugin as { name: string }).name}: `)).toBe(true);
      expect(message).toContain(`${bad.mentions}: `);
    });
  }

  it('is invisible when its policy permits everything, errors and notifications included', async () => {
    const { default: plugin } = (await c.load()) as { default: unknown };
    const dir = await mkdtemp(join(tmpdir(), 'sy-contract-'));
    cleanup.add(() => rm(dir, { recursive: true, force: true }));

    const plain = await upstream();
    const bare = await gatewayWith(plain.url, []);
    const expected = await script(bare.client, plain.server);
    // The script reached tools, prompts and their errors (not only resources).
    expect(expected).toContainEqual(
      expect.objectContaining({ method: 'tools/call', reason: 'tool_not_found' }),
    );
    expect(expected).toContainEqual(
      expect.objectContaining({
        method: 'prompts/get',
        result: expect.objectContaining({ messages: expect.any(Array) }),
      }),
    );

    const { url, server } = await upstream();
    const plugins = await setupPlugins(
      [{ plugin, options: c.permissive(dir), source: c.specifier }],
      silentLogger,
    );
    const withPlugin = await gatewayWith(url, plugins);
    expect(await script(withPlugin.client, server)).toEqual(expected);

    // A cancelled request leaves the gateway serving.
    const controller = new AbortController();
    const pending = withPlugin.client.request(
      { method: 'resources/read', params: { uri: 'docs+test://docs/r/3' } },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(pending).rejects.toBeTruthy();
    await expect(
      withPlugin.client.request({ method: 'resources/read', params: { uri: 'docs+test://docs/r/4' } }),
    ).resolves.toMatchObject({ contents: [expect.objectContaining({ uri: 'docs+test://docs/r/4' })] });

    await withPlugin.gateway.close();
    await withPlugin.gateway.close();
  });
});

describe('plugin contract: loading from a config', () => {
  it('stacks every plugin, by package name and by path, in the real CLI', async () => {
    const docs = new TestServer({ name: 'docs', resources: 4 });
    const { url } = await docs.listenHttp();
    cleanup.add(() => docs.close());
    const dir = await mkdtemp(join(tmpdir(), 'sy-contract-'));
    cleanup.add(() => rm(dir, { recursive: true, force: true }));
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url } },
      plugins: CASES.map((c) => [c.specifier, c.permissive(dir)]),
    });
    const client = await connectHttp(cleanup, gw.url);
    expect((await listAll(client)).items).toHaveLength(4);
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'docs+test://docs/r/1' } }),
    ).resolves.toMatchObject({ contents: [expect.objectContaining({ uri: 'docs+test://docs/r/1' })] });
  });
});
