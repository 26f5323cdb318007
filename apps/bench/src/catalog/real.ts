/**
 * The real part of the catalog: the tool lists of published MCP servers (pinned devDependencies),
 * started as their users start them (their bin over stdio) and asked with the official SDK client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { exposeName } from '@switchyard/core';
import type { CatalogTool } from './catalog.js';

const require = createRequire(import.meta.url);
const bin = (name: string): string =>
  join(dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), 'dist', 'index.js');

/** What the gateway declares upstream: server-everything lists some tools only to clients declaring these. */
const CLIENT_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

async function listTools(
  server: string,
  args: string[],
  env: Record<string, string>,
): Promise<CatalogTool[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'switchyard-bench-catalog', version: '1.0.0' },
    { capabilities: CLIENT_CAPABILITIES },
  );
  await client.connect(transport);
  try {
    const tools: CatalogTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: 30_000 });
      for (const tool of page.tools) {
        tools.push({ ...tool, name: exposeName(server, tool.name, true), server } as CatalogTool);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  } finally {
    await client.close();
  }
}

/** The tools of server-filesystem, server-memory and server-everything, exposed as the gateway names them. */
export async function realTools(): Promise<CatalogTool[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'switchyard-catalog-'));
  try {
    return [
      ...(await listTools('filesystem', [bin('server-filesystem'), scratch], {})),
      ...(await listTools('memory', [bin('server-memory')], {
        MEMORY_FILE_PATH: join(scratch, 'memory.jsonl'),
      })),
      ...(await listTools('everything', [bin('server-everything')], {})),
    ];
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
