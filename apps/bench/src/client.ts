import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const CONNECT_TIMEOUT_MS = 10_000;

export interface BenchClient {
  client: Client;
  url: string;
  close(): Promise<void>;
}

/** One MCP client session over Streamable HTTP (one session; fetch pools the TCP connections). */
export async function connectClient(url: string, name: string): Promise<BenchClient> {
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  let closed: Promise<void> | undefined;
  return {
    client,
    url,
    close: () => {
      closed ??= (async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close().catch(() => undefined);
      })();
      return closed;
    },
  };
}

/** Closes every client, ignoring errors (cleanup paths). */
export async function closeAll(clients: Iterable<BenchClient | undefined>): Promise<void> {
  await Promise.allSettled([...clients].map((c) => c?.close()));
}
