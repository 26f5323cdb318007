import { fileURLToPath } from 'node:url';
import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { FixtureState, startConformanceHttp } from '@switchyard/testkit/conformance';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, eventually, rawPost, startGateway } from './support/harness.js';

// Tasks through the gateway process, over its HTTP listener, for two clients with their own tokens: a
// 2025-only upstream over stdio (the tasks utility) and a 2026-07-28 one over HTTP (the Tasks extension).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const FIXTURE_CLI = fileURLToPath(
  new URL('../../../packages/testkit/dist/conformance/cli.js', import.meta.url),
);
const TASKS = 'io.modelcontextprotocol/tasks';
const RAW: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

async function gateway() {
  const fixture = await startConformanceHttp(new FixtureState());
  cleanup.add(() => fixture.close());
  return startGateway(cleanup, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    clients: { alice: { token: 'alice-token' }, bob: { token: 'bob-token' } },
    mcpServers: {
      old: { command: process.execPath, args: [FIXTURE_CLI, '--stdio', '--legacy'] },
      mod: { url: fixture.url },
    },
  });
}

const request = (client: Client, method: string, params: Record<string, unknown>) =>
  client.request({ method, params } as never, RAW);

/** One 2026-07-28 request over HTTP with a bearer token, declaring the Tasks extension. */
async function modern(url: string, token: string, method: string, params: Record<string, unknown>) {
  const name = typeof params.taskId === 'string' ? params.taskId : params.name;
  const { json } = await rawPost(
    url,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
    {
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
  );
  return json as { result?: Record<string, unknown>; error?: { code: number } };
}

describe('tasks through the gateway process', () => {
  it('binds each task to the token that created it, in both eras', async () => {
    const gw = await gateway();
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: 'alice-token' });
    const bob = await connectHttp(cleanup, gw.url, 'bob', { token: 'bob-token' });
    const statuses: Record<string, unknown>[] = [];
    alice.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/tasks/status') statuses.push(n.params ?? {});
    };
    const bobHeard: unknown[] = [];
    bob.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/tasks/status') bobHeard.push(n.params);
    };
    expect(alice.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });

    const created = await request(alice, 'tools/call', {
      name: 'old__slow_compute',
      arguments: { seconds: 0.2, label: 'e2e' },
      task: {},
    });
    const taskId = (created.task as { taskId: string }).taskId;
    expect(await request(alice, 'tasks/result', { taskId })).toMatchObject({
      content: [
        { type: 'text', text: 'Computed e2e after 0.2s' },
        { type: 'resource_link', uri: 'old+test://static-text' },
      ],
    });
    expect((await request(alice, 'tasks/list', {})).tasks).toEqual([expect.objectContaining({ taskId })]);
    await eventually(
      () => statuses.find((s) => s.taskId === taskId && s.status === 'completed'),
      'the status',
    );
    // A legacy session's Server answers tasks/get through its fallback handler, like any other method.
    expect(await request(alice, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'completed' });
    await expect(request(bob, 'tasks/get', { taskId })).rejects.toMatchObject({ code: -32602 });
    expect((await request(bob, 'tasks/list', {})).tasks).toEqual([]);
    expect(bobHeard).toEqual([]);

    // 2026-07-28, stateless: the id still routes, and still only for its creator.
    const made = await modern(gw.url, 'alice-token', 'tools/call', {
      name: 'mod__slow_compute',
      arguments: { seconds: 0 },
    });
    expect(made.result).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(/^swt1\./) });
    const modernId = made.result?.taskId as string;
    const done = await eventually(async () => {
      const got = await modern(gw.url, 'alice-token', 'tasks/get', { taskId: modernId });
      return got.result?.status === 'completed' ? got.result : undefined;
    }, 'completed');
    expect(done).toMatchObject({
      resultType: 'complete',
      result: { content: [{ type: 'text' }, { type: 'resource_link', uri: 'mod+test://static-text' }] },
    });
    expect((await modern(gw.url, 'bob-token', 'tasks/get', { taskId: modernId })).error).toMatchObject({
      code: -32602,
    });
  });
  it('bridges each era’s tasks onto the other’s upstream (found from outside: refused, and unlisted)', async () => {
    const gw = await gateway();
    // A 2026-07-28 client, a tool the 2025-only upstream runs only as a task: the upstream's -32601 came back.
    const made = await modern(gw.url, 'alice-token', 'tools/call', {
      name: 'old__failing_job',
      arguments: {},
    });
    expect(made.result).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(/^swt1\./) });
    const taskId = made.result?.taskId as string;
    const done = await eventually(async () => {
      const got = await modern(gw.url, 'alice-token', 'tasks/get', { taskId });
      return got.result?.status === 'completed' ? got.result : undefined;
    }, 'completed');
    expect(done).toMatchObject({ result: { isError: true } });
    expect((await modern(gw.url, 'bob-token', 'tasks/get', { taskId })).error).toMatchObject({
      code: -32602,
    });

    // A 2025-11-25 client's task on the 2026-07-28 upstream: missing from its tasks/list before.
    const alice = await connectHttp(cleanup, gw.url, 'alice', { token: 'alice-token' });
    const bob = await connectHttp(cleanup, gw.url, 'bob', { token: 'bob-token' });
    const created = await request(alice, 'tools/call', {
      name: 'mod__slow_compute',
      arguments: { seconds: 30 },
      task: {},
    });
    const bridged = (created.task as { taskId: string }).taskId;
    expect((await request(alice, 'tasks/list', {})).tasks).toEqual([
      expect.objectContaining({ taskId: bridged, status: 'working' }),
    ]);
    expect((await request(bob, 'tasks/list', {})).tasks).toEqual([]);
    await request(alice, 'tasks/cancel', { taskId: bridged });
  });
});
