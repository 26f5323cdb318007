import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Cleanup } from '@switchyard/testkit';

// Published MCP servers (pinned devDependencies of this package), run as their users run them: the
// package's bin over stdio.

const require = createRequire(import.meta.url);
const bin = (name: string) =>
  join(dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), 'dist', 'index.js');

export const PUBLISHED_CLI = {
  everything: bin('server-everything'),
  filesystem: bin('server-filesystem'),
  memory: bin('server-memory'),
} as const;

/** A stdio server as the gateway's config names it, and as a direct client spawns it. */
export interface StdioServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * What the gateway declares to its upstreams (`packages/core/src/upstream/upstream-client.ts`). A direct
 * client declares the same, so that a server sees the same client both ways: server-everything, for one,
 * lists its sampling, elicitation and roots tools only to clients that declare those.
 */
const GATEWAY_UPSTREAM_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

/** Probes in place instead of on a sibling process (the SDK does that for the base class only). */
class InPlaceStdio extends StdioClientTransport {}

/** An official SDK (v2) client that spawns `server` itself over stdio. */
export async function connectDirect(cleanup: Cleanup, name: string, server: StdioServer): Promise<Client> {
  const transport = new InPlaceStdio({
    command: server.command,
    args: server.args,
    env: { ...(process.env as Record<string, string>), ...server.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const client = new Client(
    { name: `direct-${name}`, version: '1.0.0' },
    { capabilities: GATEWAY_UPSTREAM_CAPABILITIES },
  );
  cleanup.add(() => client.close());
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`could not connect to ${name} directly: ${String(error)}\n${stderr}`);
  }
  return client;
}
