import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, eventually, startGateway } from './support/gateway.js';
import {
  alice,
  bob,
  legacyClient,
  legacyFixture,
  modernFixture,
  RAW,
  RELATED_TASK,
  request,
} from './support/tasks.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const taskOf = (result: Record<string, unknown>) =>
  result.task as Record<string, unknown> & { taskId: string };

// The 2025-11-25 tasks utility through the gateway: the conformance fixture as a 2025-only upstream over
// stdio, SDK clients of two identities on in-memory sessions.
describe('tasks, 2025-11-25 client and upstream', () => {
  it('routes every tasks method with a sealed id, relays input and status to the creator only', async () => {
    const gateway = await startGateway(cleanup, [legacyFixture('jobs')]);
    expect(gateway.capabilities('legacy').tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    expect(gateway.capabilities('modern').tasks).toBeUndefined();
    // Bridged for a 2026-07-28 client (tasks-bridge-legacy.test.ts).
    expect(gateway.capabilities('modern').extensions).toHaveProperty(['io.modelcontextprotocol/tasks']);
    const { client, heard } = await legacyClient(cleanup, gateway, alice);
    const other = await legacyClient(cleanup, gateway, bob);
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'jobs__confirm_delete')?.execution).toEqual({
      taskSupport: 'required',
    });

    const created = taskOf(
      await request(client, 'tools/call', {
        name: 'jobs__confirm_delete',
        arguments: { filename: 'a.txt' },
        task: { ttl: 60_000 },
      }),
    );
    expect(created).toMatchObject({ status: 'working', ttl: 60_000 });
    expect(created.taskId).toMatch(/^swt1\./);
    const taskId = created.taskId;

    const result = await request(client, 'tasks/result', { taskId });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'Deleted a.txt' }],
      _meta: { [RELATED_TASK]: { taskId } },
    });
    // The upstream's request for input reached the creator, naming the task as the creator knows it.
    expect(heard.elicitations).toHaveLength(1);
    expect(heard.elicitations[0]?._meta).toEqual({ [RELATED_TASK]: { taskId } });
    expect(await request(client, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'completed' });
    await eventually(() => heard.statuses.some((s) => s.status === 'completed') || undefined, 'the status');
    expect(heard.statuses.every((s) => s.taskId === taskId)).toBe(true);
    expect(other.heard.statuses).toEqual([]);

    // Bound to its creator: another identity gets what a made-up id gets.
    for (const id of [taskId, 'swt1.made-up', 'nope']) {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        await expect(request(other.client, method, { taskId: id }), `${method} ${id}`).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('Task not found'),
        });
      }
    }
    const bobs = taskOf(
      await request(other.client, 'tools/call', {
        name: 'jobs__slow_compute',
        arguments: { seconds: 30 },
        task: {},
      }),
    );
    const listed = await request(client, 'tasks/list', {});
    expect((listed.tasks as { taskId: string }[]).map((t) => t.taskId)).toEqual([taskId]);
    const bobsList = await request(other.client, 'tasks/list', {});
    expect((bobsList.tasks as { taskId: string }[]).map((t) => t.taskId)).toEqual([bobs.taskId]);

    expect(await request(other.client, 'tasks/cancel', { taskId: bobs.taskId })).toMatchObject({
      taskId: bobs.taskId,
      status: 'cancelled',
    });
    await expect(request(other.client, 'tasks/cancel', { taskId: bobs.taskId })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(request(client, 'tasks/update', { taskId, inputResponses: {} })).rejects.toMatchObject({
      code: -32601,
    });
  });

  it('lists on a virtual server no task of a tool it hides, as its tasks/get of one is not found', async () => {
    // Found from outside: tasks/list on a narrowed endpoint showed the tasks (ids, status, message) of
    // tools it hides, whose tasks/get there answered "not found".
    const virtualServers = new Map([
      ['narrow', { servers: ['jobs'], tools: { deny: ['jobs__confirm_delete'] } }],
    ]);
    const gateway = await startGateway(cleanup, [legacyFixture('jobs')], { virtualServers });
    const root = await legacyClient(cleanup, gateway, alice);
    const { taskId } = taskOf(
      await request(root.client, 'tools/call', {
        name: 'jobs__confirm_delete',
        arguments: { filename: 'c.txt' },
        task: {},
      }),
    );
    const listedAt = async (client: Client) =>
      ((await request(client, 'tasks/list', {})).tasks as { taskId: string }[]).map((t) => t.taskId);
    expect(await listedAt(root.client)).toEqual([taskId]);
    const narrow = await legacyClient(cleanup, gateway, alice, 'narrow');
    await expect(request(narrow.client, 'tasks/get', { taskId })).rejects.toMatchObject({ code: -32602 });
    expect(await listedAt(narrow.client)).toEqual([]);
    await request(root.client, 'tasks/result', { taskId });
  });

  it('answers a failed task with its JSON-RPC error, and a tool error as the tool result', async () => {
    const gateway = await startGateway(cleanup, [legacyFixture('jobs')]);
    const { client } = await legacyClient(cleanup, gateway, alice);
    const failing = taskOf(
      await request(client, 'tools/call', { name: 'jobs__failing_job', arguments: {}, task: {} }),
    );
    expect(await request(client, 'tasks/result', { taskId: failing.taskId })).toMatchObject({
      isError: true,
    });
    expect(await request(client, 'tasks/get', { taskId: failing.taskId })).toMatchObject({
      status: 'failed',
    });
    // The result is the tool call's, its resource links exposed as in any tool result.
    const computed = taskOf(
      await request(client, 'tools/call', {
        name: 'jobs__slow_compute',
        arguments: { seconds: 0.1 },
        task: {},
      }),
    );
    expect(await request(client, 'tasks/result', { taskId: computed.taskId })).toMatchObject({
      content: [{ type: 'text' }, { type: 'resource_link', uri: 'jobs+test://static-text' }],
    });
    const crashing = taskOf(
      await request(client, 'tools/call', { name: 'jobs__protocol_error_job', arguments: {}, task: {} }),
    );
    await expect(request(client, 'tasks/result', { taskId: crashing.taskId })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('protocol_error_job crashed'),
    });
  });
});

// A 2025-11-25 client, and a 2026-07-28 upstream (the fixture over HTTP): the gateway bridges the eras.
describe('tasks, 2025-11-25 client on a 2026-07-28 upstream', () => {
  it('creates tasks on the client’s behalf, answers tasks/result by polling and delivers its input', async () => {
    const gateway = await startGateway(cleanup, [await modernFixture(cleanup, 'jobs')]);
    expect(gateway.status()[0]).toMatchObject({ protocolVersion: '2026-07-28' });
    // No tasks/list in the 2026-07-28 extension: the gateway lists the tasks it bridged itself.
    expect(gateway.capabilities('legacy').tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    expect(gateway.capabilities('modern').extensions).toMatchObject({ 'io.modelcontextprotocol/tasks': {} });
    const { client, heard } = await legacyClient(cleanup, gateway, alice);
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'jobs__greet')?.execution).toEqual({ taskSupport: 'optional' });

    const created = taskOf(
      await request(client, 'tools/call', {
        name: 'jobs__confirm_delete',
        arguments: { filename: 'b.txt' },
        task: {},
      }),
    );
    expect(created).toMatchObject({
      status: 'working',
      ttl: expect.any(Number),
      pollInterval: expect.any(Number),
    });
    const taskId = created.taskId;
    expect(await request(client, 'tasks/result', { taskId })).toMatchObject({
      content: [{ type: 'text', text: 'Deleted b.txt' }],
      _meta: { [RELATED_TASK]: { taskId } },
    });
    expect(heard.elicitations).toEqual([
      expect.objectContaining({ message: 'Delete b.txt?', _meta: { [RELATED_TASK]: { taskId } } }),
    ]);
    expect(await request(client, 'tasks/get', { taskId })).toEqual(
      expect.objectContaining({ taskId, status: 'completed', ttl: expect.any(Number) }),
    );

    // The upstream answered at once (it decides): the client asked for a task, so the gateway holds one.
    const held = taskOf(
      await request(client, 'tools/call', { name: 'jobs__greet', arguments: { name: 'Ann' }, task: {} }),
    );
    expect(held.status).toBe('completed');
    expect(await request(client, 'tasks/get', { taskId: held.taskId })).toMatchObject({
      status: 'completed',
    });
    expect(await request(client, 'tasks/result', { taskId: held.taskId })).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Ann!' }],
    });
    await expect(request(client, 'tasks/cancel', { taskId: held.taskId })).rejects.toMatchObject({
      code: -32602,
    });

    const slow = taskOf(
      await request(client, 'tools/call', {
        name: 'jobs__slow_compute',
        arguments: { seconds: 30 },
        task: {},
      }),
    );
    expect(await request(client, 'tasks/cancel', { taskId: slow.taskId })).toMatchObject({
      taskId: slow.taskId,
    });
    await eventually(
      async () =>
        (await request(client, 'tasks/get', { taskId: slow.taskId })).status === 'cancelled' || undefined,
      'cancelled',
    );
    const failing = taskOf(
      await request(client, 'tools/call', { name: 'jobs__failing_job', arguments: {}, task: {} }),
    );
    expect(await request(client, 'tasks/result', { taskId: failing.taskId })).toMatchObject({
      isError: true,
    });
    expect(await request(client, 'tasks/get', { taskId: failing.taskId })).toMatchObject({
      status: 'failed',
    });

    // Without a task, the call runs as before (the upstream is not told the client takes tasks).
    expect(await client.callTool({ name: 'jobs__slow_compute', arguments: { seconds: 0 } })).toMatchObject({
      content: [
        { type: 'text', text: 'Computed result after 0s' },
        { type: 'resource_link', uri: 'jobs+test://static-text' },
      ],
    });

    // Found from outside: tasks/list left every bridged task out. Now each is listed, as it is now, to
    // its creator alone.
    const listed = (await client.request({ method: 'tasks/list', params: {} }, RAW)).tasks as {
      taskId: string;
      status: string;
    }[];
    expect(Object.fromEntries(listed.map((t) => [t.taskId, t.status]))).toEqual({
      [taskId]: 'completed',
      [held.taskId]: 'completed',
      [slow.taskId]: 'cancelled',
      [failing.taskId]: 'failed',
    });
    expect(listed[0]).toMatchObject({ createdAt: expect.any(String), ttl: expect.any(Number) });
    const other = await legacyClient(cleanup, gateway, bob);
    await expect(other.client.request({ method: 'tasks/list', params: {} }, RAW)).resolves.toEqual({
      tasks: [],
    });
  });
});
