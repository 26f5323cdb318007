import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, createServer, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type Cleanup,
  eventually,
  type ManagedProcess,
  type SpawnProcessOptions,
  spawnProcess,
  TestServer,
  type TestServerOptions,
} from '@switchyard/testkit';
import { LegacyHttpClient, launchGateway } from '@switchyard/testkit/mcp';
import { expect } from 'vitest';

export const GATEWAY_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
export const TESTKIT_CLI = fileURLToPath(
  new URL('../../../../packages/testkit/dist/cli.js', import.meta.url),
);
export const EVERYTHING_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

export { Cleanup, eventually, freePort, reservePort, startProcess } from '@switchyard/testkit';

/**
 * A hand-written HTTP server (a hostile upstream, a collector) on an ephemeral loopback port, closed with
 * its connections by `cleanup`; resolves to its base URL (`http://127.0.0.1:<port>`).
 */
export async function loopbackServer(cleanup: Cleanup, handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An in-process testkit upstream over Streamable HTTP on an ephemeral loopback port. */
export async function httpUpstream(cleanup: Cleanup, options: TestServerOptions) {
  const server = new TestServer(options);
  const http = await server.listenHttp();
  cleanup.add(() => server.close());
  return { server, url: http.url };
}

export async function tempDir(cleanup: Cleanup): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-test-'));
  cleanup.add(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export async function writeConfig(cleanup: Cleanup, config: unknown): Promise<string> {
  const dir = await tempDir(cleanup);
  const file = join(dir, 'switchyard.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/** A gateway CLI process (see ManagedProcess) listening on HTTP: `url` is its endpoint, `file` its config. */
export interface GatewayProcess extends ManagedProcess {
  url: string;
  file: string;
}

/** Spawns the gateway CLI with `args`; `cleanup` stops it. */
export function spawnGateway(
  cleanup: Cleanup,
  args: string[],
  options: Omit<SpawnProcessOptions, 'name' | 'args'> = {},
): ManagedProcess {
  const gw = spawnProcess({ name: 'gateway', args: [GATEWAY_CLI, ...args], ...options });
  cleanup.add(() => gw.stop());
  return gw;
}

/**
 * Starts the gateway CLI on `config` (an HTTP listener on an ephemeral loopback port unless it has
 * `listen`) with the testkit's launcher, and waits until it is listening; `cleanup` stops it.
 */
export async function startGateway(
  cleanup: Cleanup,
  config: Record<string, unknown>,
  options: { env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Promise<GatewayProcess> {
  const gw = await launchGateway({
    cli: GATEWAY_CLI,
    config,
    env: options.env,
    args: options.args,
    timeoutMs: 15_000,
  });
  cleanup.add(() => gw.stop());
  return Object.assign(gw.proc, { url: gw.url, file: gw.configFile });
}

/**
 * An official SDK (v2) client connected to the gateway over Streamable HTTP; `token` is sent as
 * `Authorization: Bearer <token>` on every request.
 */
export async function connectHttp(
  cleanup: Cleanup,
  url: string,
  name = 'test-client',
  options: { token?: string } = {},
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const requestInit = options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  cleanup.add(() => client.close());
  return client;
}

/** Resolves with the params of the next notification `method` that matches `filter`. */
export function nextNotification(
  client: Client,
  method:
    | 'notifications/resources/updated'
    | 'notifications/resources/list_changed'
    | 'notifications/message',
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${method} within ${timeoutMs} ms`)), timeoutMs);
    client.setNotificationHandler(method, (n) => {
      clearTimeout(timer);
      client.removeNotificationHandler(method);
      resolve((n.params ?? {}) as Record<string, unknown>);
    });
  });
}

/** Collects every notification of `method` a client receives. */
export function collectNotifications(client: Client, method: Parameters<typeof nextNotification>[1]) {
  const seen: Record<string, unknown>[] = [];
  client.setNotificationHandler(method, (n) => {
    seen.push((n.params ?? {}) as Record<string, unknown>);
  });
  return seen;
}

/** Walks a merged listing page by page with explicit cursors; returns items and the page count. */
export async function listAll(
  client: Client,
  method: 'resources/list' | 'resources/templates/list' = 'resources/list',
): Promise<{ items: Record<string, unknown>[]; pages: number; metas: unknown[] }> {
  const field = method === 'resources/list' ? 'resources' : 'resourceTemplates';
  const items: Record<string, unknown>[] = [];
  const metas: unknown[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = (await client.request({ method, params: cursor ? { cursor } : {} })) as Record<
      string,
      unknown
    >;
    pages += 1;
    items.push(...((page[field] as Record<string, unknown>[]) ?? []));
    if (page._meta) metas.push(page._meta);
    cursor = page.nextCursor as string | undefined;
  } while (cursor && pages < 10_000);
  return { items, pages, metas };
}

/** Reads the control URL a stdio testkit writes to its --control-file. */
export async function readControlUrl(file: string): Promise<string> {
  return eventually(async () => (await readFile(file, 'utf8')).trim() || undefined, `control file ${file}`);
}

/** A raw JSON-RPC POST (for checking exact wire codes and HTTP statuses). */
export async function rawPost(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, json: parseMaybeSse(text), headers: res.headers };
}

function parseMaybeSse(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(trimmed);
  const data = trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((line) => line.length > 0);
  return data.length > 0 ? JSON.parse(data[data.length - 1]!) : undefined;
}

/**
 * Opens a legacy session (2025-06-18) with the testkit's raw client and returns the session id and the
 * negotiated version; the session is left open (no keep-alive socket lingers).
 */
export async function rawInitialize(url: string): Promise<{ sessionId: string; protocolVersion: string }> {
  const session = await LegacyHttpClient.open(url, {
    agent: new Agent({ keepAlive: false }),
    clientName: 'raw',
    protocolVersion: '2025-06-18',
  });
  return { sessionId: session.sessionId, protocolVersion: session.protocolVersion };
}

/** What every transport's handshake must show: Switchyard's serverInfo, its capabilities, and ping. */
export async function expectSwitchyardHandshake(client: Client): Promise<void> {
  expect(client.getServerVersion()?.name).toBe('switchyard');
  expect(client.getNegotiatedProtocolVersion()).toMatch(/^20\d\d-\d\d-\d\d$/);
  expect(client.getServerCapabilities()).toMatchObject({
    resources: { subscribe: true, listChanged: true },
    completions: {},
  });
  await expect(client.ping()).resolves.toEqual({});
}
