/**
 * The testkit's gateway launcher (`launchGateway`) on the built CLI: HTTP on an ephemeral port, the admin
 * listener waited for too, stdio, a start that fails (stopped, its dir removed), and the raw clients of
 * both eras through the launched gateway.
 */
import { existsSync } from 'node:fs';
import { LegacyHttpClient, launchGateway, ModernHttpClient } from '@switchyard/testkit/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, GATEWAY_CLI, httpUpstream } from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('launchGateway', () => {
  it('starts on an ephemeral loopback port, serves both eras, and stops for sure', async () => {
    const up = await httpUpstream(cleanup, { name: 'up', resources: 2, modern: true });
    const gw = await launchGateway({
      cli: GATEWAY_CLI,
      config: {
        mcpServers: { up: { url: up.url } },
        listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' }, admin: { host: '127.0.0.1', port: 0 } },
      },
      requireUpstreams: true,
    });
    cleanup.add(() => gw.stop());
    expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(gw.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const legacy = await LegacyHttpClient.open(gw.url);
    const modern = new ModernHttpClient(gw.url);
    for (const client of [legacy, modern]) {
      const read = await client.request({ method: 'resources/read', params: { uri: 'up+test://up/r/0' } });
      expect((read.contents as { uri: string }[])[0]!.uri).toBe('up+test://up/r/0');
    }
    await legacy.close();
    await modern.close();
    await gw.stop();
    expect(gw.proc.running()).toBe(false);
    expect(existsSync(gw.dir)).toBe(false);
  });

  it('serves stdio when asked', async () => {
    const gw = await launchGateway({ cli: GATEWAY_CLI, config: { mcpServers: {} }, stdio: true });
    cleanup.add(() => gw.stop());
    expect(gw.url).toBe('');
    expect(gw.proc.running()).toBe(true);
  });

  it('rejects when the gateway does not start, or starts without an upstream it must have', async () => {
    const failed = launchGateway({
      cli: GATEWAY_CLI,
      config: { mcpServers: 'not an object' },
      timeoutMs: 10_000,
    });
    await expect(failed).rejects.toThrow();
    await expect(
      launchGateway({
        cli: GATEWAY_CLI,
        config: { mcpServers: { dead: { url: 'http://127.0.0.1:9/mcp', timeoutMs: 500 } } },
        requireUpstreams: true,
        timeoutMs: 10_000,
      }),
    ).rejects.toThrow(/could not connect every upstream|exited|ready line/);
  });
});
