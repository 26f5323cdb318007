import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { WebSocketClientTransport } from '@switchyard/core/listener';
import { type ControlClient, controlClient } from '@switchyard/testkit';
import { type Cleanup, eventually, readControlUrl, TESTKIT_CLI, tempDir, writeConfig } from './harness.js';
import { connectStdio, type TextSink } from './stdio.js';

// Shared fixtures of the tools and prompts end-to-end tests: paging through tools/list and prompts/list,
// testkit upstreams over stdio with their control API, and one gateway process serving stdio, HTTP and
// WebSocket at once, reached by official SDK v2 clients of either era.

export type Json = Record<string, unknown>;

/** Walks `tools/list` or `prompts/list` page by page with explicit cursors (the SDK would walk it itself). */
export async function listPages(
  client: Client,
  method: 'tools/list' | 'prompts/list',
): Promise<{ items: Json[]; pages: number; metas: Json[] }> {
  const field = method === 'tools/list' ? 'tools' : 'prompts';
  const items: Json[] = [];
  const metas: Json[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = (await client.request({ method, params: cursor ? { cursor } : {} })) as Json;
    pages += 1;
    items.push(...((page[field] as Json[] | undefined) ?? []));
    if (page._meta) metas.push(page._meta as Json);
    cursor = page.nextCursor as string | undefined;
  } while (cursor && pages < 1_000);
  return { items, pages, metas };
}

export const names = (items: Json[]): string[] => items.map((item) => item.name as string);

/** What a promise rejected with (undefined when it resolved), to assert on the whole error. */
export const errorOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** A testkit CLI child to run as a stdio upstream (`config` goes into mcpServers), with its control API. */
export async function stdioUpstream(
  cleanup: Cleanup,
  name: string,
  flags: string[],
): Promise<{ config: Json; control: () => Promise<ControlClient> }> {
  const controlFile = join(await tempDir(cleanup), `${name}.control`);
  return {
    config: {
      command: process.execPath,
      args: [TESTKIT_CLI, '--name', name, ...flags, '--control-file', controlFile],
    },
    // The file is rewritten when the child restarts: read it each time.
    control: () => readControlUrl(controlFile).then(controlClient),
  };
}

/**
 * The URL of an MCP server that is down for the whole test: a loopback port held open by a listener that
 * drops every connection, so no other server can take the port meanwhile.
 */
export async function downUrl(cleanup: Cleanup): Promise<string> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}/mcp`;
}

const loopback = { host: '127.0.0.1', port: 0, path: '/mcp' };

export interface EverywhereGateway {
  /** The v2 client (legacy era) that spawned the gateway and talks to it over stdio. */
  stdio: Client;
  /** The gateway's stderr. */
  logs: TextSink;
  httpUrl: string;
  wsUrl: string;
}

/**
 * One gateway CLI process serving stdio, Streamable HTTP and WebSocket at once: spawned as the stdio
 * server of a v2 client, with both network listeners on ephemeral loopback ports.
 */
export async function startEverywhere(
  cleanup: Cleanup,
  mcpServers: Record<string, unknown>,
): Promise<EverywhereGateway> {
  const file = await writeConfig(cleanup, {
    listen: { stdio: true, http: loopback, ws: loopback },
    mcpServers,
  });
  const { client, logs } = await connectStdio(cleanup, file, { name: 'stdio-client' });
  const httpUrl = (await logs.waitFor(/listening on (http:\/\/\S+)/, 15_000))[1]!;
  const wsUrl = (await logs.waitFor(/listening on (ws:\/\/\S+)/, 15_000))[1]!;
  return { stdio: client, logs, httpUrl, wsUrl };
}

/** A 2026-07-28 client of the gateway over Streamable HTTP (stateless: no handshake, `server/discover`). */
export async function connectModernHttp(
  cleanup: Cleanup,
  url: string,
  name = 'modern-client',
): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  return client;
}

/** The official SDK v2 client over Switchyard's WebSocket transport (legacy era). */
export async function connectWs(cleanup: Cleanup, url: string, name = 'ws-client'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new WebSocketClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  return client;
}

export type NamedListChanged =
  | 'notifications/tools/list_changed'
  | 'notifications/prompts/list_changed'
  | 'notifications/resources/list_changed';

/**
 * Counts one kind of list_changed on a client. `settle()` makes a round trip first, so that anything
 * already on its way (the gateway announces upstreams that come up) has arrived; `next()` then waits for
 * one more than was seen.
 */
export function listChangedCounter(client: Client, method: NamedListChanged) {
  let seen = 0;
  let expected = 0;
  client.setNotificationHandler(method, () => {
    seen += 1;
  });
  return {
    get seen() {
      return seen;
    },
    async settle() {
      await client.ping();
      expected = seen;
    },
    async next(what: string, timeoutMs = 10_000) {
      expected += 1;
      await eventually(() => seen >= expected, what, timeoutMs);
      expected = seen;
    },
  };
}
