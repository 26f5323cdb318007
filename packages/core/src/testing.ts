import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Identity } from './context.js';
import { openSession } from './downstream/session.js';
import type { Gateway } from './gateway.js';

export interface InMemoryClient {
  /** An official SDK client, connected and initialized. */
  client: Client;
  /** The gateway-side session id. */
  sessionId: string;
  /** Closes the client and the gateway session (releasing its subscriptions). Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects an official SDK client to `gateway` in-process, as `identity`: the way to test a plugin
 * end to end without a listener (the identity is what a bearer token would have resolved to).
 *
 * @example
 * const { client, close } = await connectInMemoryClient(gateway, { identity: { id: 'alice', groups: [], anonymous: false } });
 * await client.request({ method: 'resources/read', params: { uri: 'docs+file:///a.md' } });
 * await close();
 */
export async function connectInMemoryClient(
  gateway: Gateway,
  options: { identity?: Identity; sessionId?: string; name?: string } = {},
): Promise<InMemoryClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = openSession(gateway, {
    transport: 'memory',
    id: options.sessionId,
    identity: options.identity,
  });
  await session.connect(serverSide);
  const client = new Client({
    name: options.name ?? options.identity?.id ?? 'in-memory-client',
    version: '1.0.0',
  });
  try {
    await client.connect(clientSide);
  } catch (error) {
    await session.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    client,
    sessionId: session.id,
    close: () => {
      closing ??= (async () => {
        await client.close().catch(() => {});
        await session.close();
      })();
      return closing;
    },
  };
}

/** The plugins' port to the gateway, for tests that set a plugin up by hand (e.g. with their own meter). */
export { GatewayPort } from './plugins/host.js';
/** The tracer and meter from the global OpenTelemetry API, as plugins get them in `setup`. */
export { telemetryApi } from './telemetry.js';
