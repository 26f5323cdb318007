import type { McpServer } from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';

/**
 * Serves `create` on this process's stdin/stdout in both wire eras: the client's opening message picks
 * 2025 (`initialize`) or 2026-07-28. Logs go to stderr, prefixed with the server's name.
 */
export function serveOnStdio(
  name: string,
  create: (era: 'legacy' | 'modern') => McpServer,
): StdioServerHandle {
  return serveStdio((ctx) => create(ctx.era), {
    onerror: (error) => process.stderr.write(`[${name}] ${error.message}\n`),
  });
}
