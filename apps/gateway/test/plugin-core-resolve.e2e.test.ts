import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  httpUpstream,
  spawnGateway,
  startGateway,
  tempDir,
  writeConfig,
} from './support/harness.js';
import { callTool } from './support/wild.js';

// A plugin loaded by path, kept where no `@switchyard/core` resolves from its folder (a scratch dir under
// the OS temp dir, no node_modules above it), gets the gateway's own copy: it loads, and the errors it
// makes are the gateway's `GatewayError` (found from outside: it failed to load with `Cannot find package
// '@switchyard/core'` unless the gateway was installed in a folder above it).

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

const PLUGIN = `
import { defineErrorReasons, definePlugin, GatewayError } from '@switchyard/core';
import { testRequest } from '@switchyard/core/testing';

const Reasons = defineErrorReasons('@acme/closed-on-sunday', {
  closed_today: { code: -32017, summary: 'closed today: retry tomorrow', refusal: true },
});

export default definePlugin({
  name: 'closed-on-sunday',
  core: '*',
  setup: () => ({
    request: async (ctx, next) => {
      if (ctx.method !== 'tools/call') return next();
      const error = Reasons.closed_today.error('Closed today: retry tomorrow.');
      // Two copies of core would make this false (and the answer -32603 internal).
      if (!(error instanceof GatewayError) || typeof testRequest !== 'function') throw new Error('two copies');
      return { ok: false, error };
    },
  }),
});
`;

describe('a plugin loaded by path with no @switchyard/core of its own', () => {
  it('loads with the gateway’s copy, and its registered reason reaches the client', async () => {
    const dir = await tempDir(cleanup);
    const file = join(dir, 'closed-on-sunday.js');
    await writeFile(file, PLUGIN);
    const up = await httpUpstream(cleanup, { name: 'up', tools: 1 });
    const gw = await startGateway(cleanup, { mcpServers: { up: { url: up.url } }, plugins: [[file, {}]] });
    const client = await connectHttp(cleanup, gw.url);
    const { tools } = await client.listTools();
    expect(await callTool(client, tools[0]!.name)).toMatchObject({
      error: { code: -32017, message: 'Closed today: retry tomorrow.', data: { reason: 'closed_today' } },
    });
  });

  it('names the plugin, not the gateway, when it imports a subpath core does not export', async () => {
    // Found from outside: the error said the gateway's own module imported it.
    const dir = await tempDir(cleanup);
    const file = join(dir, 'wrong-subpath.js');
    await writeFile(file, "import '@switchyard/core/nope';\nexport default {};\n");
    const config = await writeConfig(cleanup, { mcpServers: {}, plugins: [[file, {}]] });
    const check = spawnGateway(cleanup, ['check', '--config', config]);
    expect(await check.exited).toBe(2);
    expect(check.stderr()).toContain(
      `Cannot import '@switchyard/core/nope' in file://${file}: its folder has no @switchyard/core`,
    );
  });
});
