import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createDownstreamSession, type Gateway } from '@switchyard/core';

/** Serves one downstream session on this process's stdin/stdout. Resolves `closed` when stdin ends. */
export async function startStdioListener(
  gateway: Gateway,
): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
  const session = createDownstreamSession(gateway, 'stdio', 'stdio');
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  transport.onclose = () => {
    void session.close().finally(resolveClosed);
  };
  process.stdin.once('end', () => void transport.close());
  await session.server.connect(transport);
  return { closed, close: () => transport.close() };
}
