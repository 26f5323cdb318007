import { Client, type StandardSchemaV1, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { FixtureState, startConformanceHttp } from '../src/conformance/index.js';
import { Cleanup, eventually } from '../src/test-support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const TASKS = 'io.modelcontextprotocol/tasks';
/** Results are read as sent: the SDK client has no schema for the tasks methods (or for `resultType: "task"`). */
const RAW: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

async function fixtureUrl(): Promise<string> {
  const http = await startConformanceHttp(new FixtureState());
  cleanup.add(() => http.close());
  return http.url;
}

/** One stateless 2026-07-28 request, as the conformance suite sends it (the SDK client refuses task results). */
async function modern(url: string, method: string, params: Record<string, unknown>, extensions = true) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}),
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: {},
            ...(extensions ? { extensions: { [TASKS]: {} } } : {}),
          },
        },
      },
    }),
  });
  const text = await response.text();
  const line = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: {"jsonrpc"'));
  return JSON.parse(line?.replace(/^data: /, '') ?? text) as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

describe('conformance fixture tasks, 2026-07-28 extension (SEP-2663)', () => {
  it('creates a task, surfaces its input requests, resumes on tasks/update and inlines the result', async () => {
    const url = await fixtureUrl();
    const discovered = await modern(url, 'server/discover', {});
    expect(discovered.result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    expect(discovered.result?.capabilities).not.toHaveProperty('tasks');

    const created = (
      await modern(url, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' } })
    ).result!;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number) });
    const taskId = created.taskId as string;
    const waiting = await eventually(async () => {
      const got = (await modern(url, 'tasks/get', { taskId })).result!;
      return got.status === 'input_required' ? got : undefined;
    }, 'input_required');
    const [key] = Object.keys(waiting.inputRequests as object);
    expect((waiting.inputRequests as Record<string, { method: string }>)[key!]!.method).toBe(
      'elicitation/create',
    );
    const ack = await modern(url, 'tasks/update', {
      taskId,
      inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } },
    });
    expect(ack.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    const done = await eventually(async () => {
      const got = (await modern(url, 'tasks/get', { taskId })).result!;
      return got.status === 'completed' ? got : undefined;
    }, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Deleted a.txt' }] });
  });

  it('refuses the tasks methods and task-required tools without the extension (-32021)', async () => {
    const url = await fixtureUrl();
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tools/call', { name: 'failing_job', arguments: {} }],
    ] as const) {
      const answer = await modern(url, method, params, false);
      expect(answer.error?.code, method).toBe(-32021);
      expect(answer.error?.data).toMatchObject({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
    const sync = await modern(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, false);
    expect(sync.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text' }, { type: 'resource_link', uri: 'test://static-text' }],
    });
  });
});

describe('conformance fixture tasks, 2025-11-25 utility', () => {
  it('runs task-augmented calls, asks for input on tasks/result, lists, cancels and notifies', async () => {
    const url = await fixtureUrl();
    const client = new Client(
      { name: 'test', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params._meta);
      return { action: 'accept', content: { confirm: true } };
    });
    const statuses: string[] = [];
    // Not a notification the SDK client has a typed handler for.
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/tasks/status') statuses.push(String(n.params?.status));
    };
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    cleanup.add(async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    });
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const call = (name: string, args: Record<string, unknown>) =>
      client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, RAW);

    const created = (await call('confirm_delete', { filename: 'b.txt' })).task as Record<string, unknown>;
    expect(created).toMatchObject({ status: 'working', ttl: 60_000 });
    const taskId = created.taskId as string;
    const result = await client.request({ method: 'tasks/result', params: { taskId } }, RAW);
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'Deleted b.txt' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    expect(asked).toEqual([{ 'io.modelcontextprotocol/related-task': { taskId } }]);
    await eventually(() => statuses.includes('completed') || undefined, 'the completed status notification');

    const listed = await client.request({ method: 'tasks/list', params: {} }, RAW);
    expect((listed.tasks as { taskId: string }[]).map((t) => t.taskId)).toContain(taskId);

    const slow = ((await call('slow_compute', { seconds: 30 })).task as { taskId: string }).taskId;
    expect(await client.request({ method: 'tasks/cancel', params: { taskId: slow } }, RAW)).toMatchObject({
      status: 'cancelled',
    });
    await expect(
      client.request({ method: 'tasks/cancel', params: { taskId: slow } }, RAW),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {} } }, RAW),
    ).rejects.toMatchObject({ code: -32601 });
  });
});
