import type { Client } from '@modelcontextprotocol/client';
import { Gateway, type Identity, type Logger, setupPlugins, silentLogger } from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import { Cleanup, TestServer, type TestServerOptions } from '@switchyard/testkit';
import access, { type AccessOptions } from '../src/index.js';

// A real gateway in process, real testkit upstreams over HTTP on loopback, official SDK clients over
// in-memory transports, each session acting as one identity.

export const alice: Identity = { id: 'alice', groups: ['platform'], anonymous: false };
export const bob: Identity = { id: 'bob', groups: ['contractors'], anonymous: false };
export const carol: Identity = { id: 'carol', groups: [], anonymous: false };
export const mallory: Identity = { id: 'mallory', groups: [], anonymous: false };

export const FORBIDDEN = { code: -32007, data: { reason: 'forbidden' } };

export interface UpstreamSpec {
  name: string;
  options: TestServerOptions;
  prefix?: boolean;
}

/** The access plugin alone in front of `specs`, each a testkit server over HTTP. */
export async function gatewayWith(
  cleanup: Cleanup,
  options: AccessOptions,
  specs: UpstreamSpec[],
  logger: Logger = silentLogger,
) {
  const servers = new Map<string, TestServer>();
  const upstreams = await Promise.all(
    specs.map(async (spec) => {
      const server = new TestServer(spec.options);
      cleanup.add(() => server.close());
      servers.set(spec.name, server);
      const { url } = await server.listenHttp();
      return {
        name: spec.name,
        prefix: spec.prefix ?? true,
        timeoutMs: 5_000,
        transport: { kind: 'http' as const, url, headers: {} },
      };
    }),
  );
  const plugins = await setupPlugins([{ plugin: access, options, source: 'test' }], logger);
  const gateway = new Gateway({ upstreams, plugins, logger: silentLogger });
  cleanup.add(() => gateway.close());
  await gateway.start();
  const server = (name: string) => servers.get(name)!;
  return { gateway, server };
}

/** An official SDK client on an in-memory session of `gateway`, acting as `identity`. */
export async function connect(cleanup: Cleanup, gateway: Gateway, identity: Identity): Promise<Client> {
  const { client, close } = await connectInMemoryClient(gateway, { identity });
  cleanup.add(close);
  return client;
}

export type ListMethod = 'resources/list' | 'resources/templates/list' | 'tools/list' | 'prompts/list';

const ITEMS: Record<ListMethod, { field: string; key: string }> = {
  'resources/list': { field: 'resources', key: 'uri' },
  'resources/templates/list': { field: 'resourceTemplates', key: 'uriTemplate' },
  'tools/list': { field: 'tools', key: 'name' },
  'prompts/list': { field: 'prompts', key: 'name' },
};

/** Walks a merged listing with explicit cursors; every page as the client saw it. */
export async function walk(client: Client, method: ListMethod = 'resources/list') {
  const { field, key } = ITEMS[method];
  const pages: { items: string[]; nextCursor: string | undefined }[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request({ method, params: cursor ? { cursor } : {} } as never)) as Record<
      string,
      unknown
    >;
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    const items = ((page[field] as Record<string, unknown>[]) ?? []).map((item) => String(item[key]));
    pages.push({ items, nextCursor: cursor });
  } while (cursor && pages.length < 100);
  return { pages, items: pages.flatMap((p) => p.items) };
}

export const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

export { Cleanup };
