import type { Client } from '@modelcontextprotocol/client';
import { type Cleanup, TestServer, type TestServerOptions } from '@switchyard/testkit';
import type { UpstreamConfig } from '../../src/config.js';
import type { Identity } from '../../src/context.js';
import { Gateway, type GatewayOptions } from '../../src/gateway.js';
import { silentLogger } from '../../src/logger.js';
import { connectInMemoryClient } from '../../src/testing.js';

export { Cleanup, eventually } from '@switchyard/testkit';

/** An in-process testkit upstream over Streamable HTTP on an ephemeral loopback port. */
export async function httpUpstream(cleanup: Cleanup, options: TestServerOptions) {
  const server = new TestServer(options);
  cleanup.add(() => server.close());
  const http = await server.listenHttp();
  return { server, url: http.url };
}

export function upstreamConfig(
  name: string,
  url: string,
  extra: Partial<Omit<UpstreamConfig, 'name' | 'transport'>> = {},
): UpstreamConfig {
  return { name, prefix: true, timeoutMs: 5000, transport: { kind: 'http', url, headers: {} }, ...extra };
}

/** A started in-process gateway (closed by `cleanup`). */
export async function startGateway(
  cleanup: Cleanup,
  upstreams: UpstreamConfig[],
  extra: Partial<GatewayOptions> = {},
): Promise<Gateway> {
  const gateway = new Gateway({ upstreams, logger: silentLogger, listChangedDebounceMs: 5, ...extra });
  cleanup.add(() => gateway.close());
  await gateway.start();
  return gateway;
}

/** An official SDK client connected in-process (legacy era), closed by `cleanup`. */
export async function connect(cleanup: Cleanup, gateway: Gateway, identity?: Identity): Promise<Client> {
  const { client, close } = await connectInMemoryClient(gateway, { identity });
  cleanup.add(close);
  return client;
}

/** Walks every page of a merged list with explicit cursors. */
export async function listAll(
  client: Client,
  method: 'tools/list' | 'prompts/list',
): Promise<{ items: Record<string, unknown>[]; pages: number }> {
  const field = method === 'tools/list' ? 'tools' : 'prompts';
  const items: Record<string, unknown>[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = (await client.request({ method, params: cursor === undefined ? {} : { cursor } })) as Record<
      string,
      unknown
    >;
    items.push(...(page[field] as Record<string, unknown>[]));
    cursor = page.nextCursor as string | undefined;
    pages += 1;
  } while (cursor !== undefined && pages < 1000);
  return { items, pages };
}

export const names = (items: Record<string, unknown>[]) => items.map((i) => i.name as string);
