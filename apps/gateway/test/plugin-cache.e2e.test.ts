import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  eventually,
  httpUpstream,
  spawnGateway,
  startGateway,
  writeConfig,
} from './support/harness.js';

// @switchyard/plugin-cache loaded by package name from the config of the real CLI, in front of a
// testkit upstream over HTTP, read by an official SDK client over HTTP.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const listen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

async function readText(client: Client, uri: string): Promise<string> {
  const result = (await client.request({ method: 'resources/read', params: { uri } })) as {
    contents: { text?: string }[];
  };
  return String(result.contents[0]?.text);
}

describe('@switchyard/plugin-cache in the gateway', () => {
  it('serves repeated reads from cache and drops an entry when the upstream updates it', async () => {
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 3 });
    const reads = () => up.server.stats.requests['resources/read'] ?? 0;
    const gw = await startGateway(cleanup, {
      listen,
      mcpServers: { docs: { url: up.url } },
      plugins: [['@switchyard/plugin-cache', { maxBytes: 1_048_576, ttlMs: 60_000 }]],
    });
    const client = await connectHttp(cleanup, gw.url);
    const uri = 'docs+test://docs/r/1';
    expect(await readText(client, uri)).toBe('resource 1');
    expect(await readText(client, uri)).toBe('resource 1');
    expect(reads()).toBe(1);
    // The cache holds the upstream subscription on the URI it cached.
    expect(up.server.stats.subscribed['test://docs/r/1']).toBe(1);

    up.server.setText('test://docs/r/1', 'updated');
    await up.server.triggerUpdated('test://docs/r/1');
    await eventually(async () => (await readText(client, uri)) === 'updated', 'the updated content');
    expect(reads()).toBe(2);
    expect(await readText(client, uri)).toBe('updated');
    expect(reads()).toBe(2);
  });

  it('never caches tool calls: each one reaches the upstream', async () => {
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 1, tools: 1 });
    const gw = await startGateway(cleanup, {
      listen,
      mcpServers: { docs: { url: up.url } },
      plugins: [['@switchyard/plugin-cache', {}]],
    });
    const client = await connectHttp(cleanup, gw.url);
    for (let i = 0; i < 3; i++) {
      await expect(
        client.request({
          method: 'tools/call',
          params: { name: 'docs__tool_0', arguments: { text: 'same' } },
        }),
      ).resolves.toMatchObject({ structuredContent: { tool: 'tool_0', arguments: { text: 'same' } } });
    }
    expect(up.server.stats.toolCalls).toEqual({ tool_0: 3 });
  });

  it('refuses to start on a bad option, naming it (exit code 2)', async () => {
    const file = await writeConfig(cleanup, {
      listen,
      mcpServers: {},
      plugins: [['@switchyard/plugin-cache', { maxBytes: '64MB' }]],
    });
    const gw = spawnGateway(cleanup, ['--config', file]);
    expect(await gw.exited).toBe(2);
    expect(gw.stderr()).toMatch(
      /plugin error \(PLUGIN_INVALID_OPTIONS\): Plugin @switchyard\/plugin-cache \(\$\.plugins\[0\]\): options\.maxBytes: expected a whole number .*, got "64MB"\n/,
    );
  });
});
