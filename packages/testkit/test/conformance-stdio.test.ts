import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup } from '../src/test-support.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/conformance/cli.js');
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: build first (pnpm --filter @switchyard/testkit build)`);
});

describe.each(['legacy', 'modern'] as const)('switchyard-testkit-conformance --stdio, %s era', (era) => {
  it('serves the era the opening message picks', async () => {
    const client = new Client(
      { name: 'fixture-stdio-test', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--stdio'],
      stderr: 'ignore',
    });
    await client.connect(transport);
    cleanup.add(() => client.close());

    expect(client.getProtocolEra()).toBe(era);
    const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    const read = await client.readResource({ uri: 'test://static-binary' });
    expect(read.contents[0]).toMatchObject({ uri: 'test://static-binary', mimeType: 'image/png' });
  });
});
