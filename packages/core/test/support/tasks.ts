import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Cleanup } from '@switchyard/testkit';
import { FixtureState, startConformanceHttp } from '@switchyard/testkit/conformance';
import type { UpstreamConfig } from '../../src/config.js';
import type { Identity } from '../../src/context.js';
import { openSession } from '../../src/downstream/session.js';
import type { Gateway } from '../../src/gateway.js';
import { acceptTaskResults } from '../../src/upstream/task-results.js';

/** The testkit's conformance fixture CLI (built: the test run builds every package first). */
const FIXTURE_CLI = fileURLToPath(new URL('../../../testkit/dist/conformance/cli.js', import.meta.url));

export const TASKS = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** Results as sent: the SDK has no result schema for the tasks methods. */
export const RAW: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

export const alice: Identity = { id: 'alice', groups: [], anonymous: false };
export const bob: Identity = { id: 'bob', groups: [], anonymous: false };

/** The conformance fixture over stdio, serving only the 2025-11-25 era (its tasks utility). */
export function legacyFixture(name: string): UpstreamConfig {
  return {
    name,
    prefix: true,
    timeoutMs: 10_000,
    transport: {
      kind: 'stdio',
      command: process.execPath,
      args: [FIXTURE_CLI, '--stdio', '--legacy'],
      env: {},
    },
  };
}

/** The conformance fixture over Streamable HTTP: both eras, so the gateway speaks 2026-07-28 to it. */
export async function modernFixture(cleanup: Cleanup, name: string): Promise<UpstreamConfig> {
  const http = await startConformanceHttp(new FixtureState());
  cleanup.add(() => http.close());
  return { name, prefix: true, timeoutMs: 10_000, transport: { kind: 'http', url: http.url, headers: {} } };
}

/** What a client was asked and told. */
export interface Heard {
  elicitations: Record<string, unknown>[];
  statuses: Record<string, unknown>[];
}

/**
 * A 2025-11-25 SDK client on an in-memory session of `gateway` acting as `identity`: it declares
 * elicitation, accepts every elicitation with `{ confirm: true, name }`, and records task statuses.
 */
export async function legacyClient(
  cleanup: Cleanup,
  gateway: Gateway,
  identity: Identity,
  endpoint?: string,
) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = openSession(gateway, { transport: 'memory', identity, ...(endpoint ? { endpoint } : {}) });
  await session.connect(serverSide);
  const client = new Client(
    { name: identity.id, version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  const heard: Heard = { elicitations: [], statuses: [] };
  client.setRequestHandler('elicitation/create', (request) => {
    heard.elicitations.push(request.params as Record<string, unknown>);
    return { action: 'accept', content: { confirm: true, name: identity.id } };
  });
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tasks/status') heard.statuses.push(n.params ?? {});
  };
  cleanup.add(async () => {
    await client.close().catch(() => {});
    await session.close();
  });
  await client.connect(clientSide);
  return { client, heard };
}

/**
 * A 2026-07-28 SDK client on an in-memory session of `gateway` acting as `identity`, served as the stdio
 * listener serves one (the SDK's `serveStdio` builds a modern instance). It declares the Tasks extension
 * unless told not to; its transport lets `resultType: "task"` through, which the SDK client refuses.
 */
export async function modernClient(
  cleanup: Cleanup,
  gateway: Gateway,
  identity: Identity,
  { tasks = true }: { tasks?: boolean } = {},
) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = openSession(gateway, { transport: 'memory', identity });
  const handle = serveStdio(session.build, { transport: session.wrap(serverSide) });
  const client = new Client(
    { name: identity.id, version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, ...(tasks ? { extensions: { [TASKS]: {} } } : {}) },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  cleanup.add(async () => {
    await client.close().catch(() => {});
    await handle.close().catch(() => {});
    await session.close();
  });
  await client.connect(acceptTaskResults(clientSide));
  return client;
}

/** A raw request whose result is read as sent. */
export function request(client: Client, method: string, params: Record<string, unknown>) {
  return client.request({ method, params } as never, RAW);
}
