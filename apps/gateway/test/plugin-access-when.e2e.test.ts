import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  httpUpstream,
  spawnGateway,
  startGateway,
  writeConfig,
} from './support/harness.js';

// @switchyard/plugin-access rules with `when` (CEL) through the real CLI, a testkit upstream over HTTP and
// an official SDK client over Streamable HTTP.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const FORBIDDEN = { code: -32007, data: { reason: 'forbidden' } };

describe('@switchyard/plugin-access when conditions through the CLI', () => {
  it('refuses a call whose arguments a deny condition matches, before the upstream, and serves others', async () => {
    const fs = await httpUpstream(cleanup, { name: 'fs', tools: 2 });
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { fs: { url: fs.url } },
      plugins: [
        [
          '@switchyard/plugin-access',
          {
            default: 'allow',
            rules: [{ effect: 'deny', tools: ['fs__tool_0'], when: 'arguments.text.startsWith("/etc")' }],
          },
        ],
      ],
    });
    const client = await connectHttp(cleanup, gw.url, 'when-client');
    // A condition on arguments hides nothing from the list.
    const { tools } = await client.request({ method: 'tools/list', params: {} });
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fs__tool_0', 'fs__tool_1']);

    await expect(
      client.request({
        method: 'tools/call',
        params: { name: 'fs__tool_0', arguments: { text: '/etc/passwd' } },
      }),
    ).rejects.toMatchObject(FORBIDDEN);
    expect(fs.server.stats.toolCalls).toEqual({});
    await expect(
      client.request({
        method: 'tools/call',
        params: { name: 'fs__tool_0', arguments: { text: '/tmp/notes' } },
      }),
    ).resolves.toMatchObject({ structuredContent: { tool: 'tool_0' } });
    expect(fs.server.stats.toolCalls).toEqual({ tool_0: 1 });
  });

  it('refuses to start on a bad expression, naming the rule (exit code 2)', async () => {
    const file = await writeConfig(cleanup, {
      mcpServers: {},
      plugins: [
        [
          '@switchyard/plugin-access',
          { rules: [{ effect: 'allow' }, { effect: 'deny', when: 'arguments.path.startsWith(' }] },
        ],
      ],
    });
    const gw = spawnGateway(cleanup, ['--config', file]);
    expect(await gw.exited).toBe(2);
    expect(gw.stderr()).toMatch(/PLUGIN_INVALID_OPTIONS/);
    expect(gw.stderr()).toMatch(
      /options\.rules\[1\]\.when: expected a valid CEL condition \(syntax error at 1:\d+: /,
    );
  });
});
