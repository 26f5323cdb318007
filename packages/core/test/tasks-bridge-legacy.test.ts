import { afterEach, describe, expect, it } from 'vitest';
import { restoreTaskResult } from '../src/upstream/task-results.js';
import { Cleanup, eventually, startGateway } from './support/gateway.js';
import { alice, bob, legacyFixture, modernClient, request, TASKS } from './support/tasks.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

// A 2026-07-28 client, and a 2025-only upstream (the conformance fixture over stdio) whose tools
// `failing_job`, `protocol_error_job` and `confirm_delete` run only as tasks (`taskSupport: "required"`):
// the upstream refused every such call of a 2026-07-28 client (-32601 "add params.task"), which that era
// cannot add. The gateway now makes the call a task upstream.
describe('tasks, 2026-07-28 client on a 2025-11-25 upstream', () => {
  it('hands out the task to a client that declares the extension, and routes get, cancel and update', async () => {
    const gateway = await startGateway(cleanup, [legacyFixture('jobs')]);
    expect(gateway.capabilities('modern').extensions).toMatchObject({ [TASKS]: {} });
    const client = await modernClient(cleanup, gateway, alice);
    const tools = (await client.listTools()).tools;
    // No tool-level negotiation in 2026-07-28: the gateway decides, so `required` is not shown.
    expect(tools.find((t) => t.name === 'jobs__failing_job')?.execution).toBeUndefined();

    const call = async (name: string, args: Record<string, unknown> = {}) =>
      restoreTaskResult(await request(client, 'tools/call', { name, arguments: args }));
    const ended = async (taskId: string) =>
      eventually(async () => {
        const task = await request(client, 'tasks/get', { taskId });
        return task.status === 'working' ? undefined : task;
      }, `task ${taskId} ended`);

    const failing = await call('jobs__failing_job');
    expect(failing).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.anything() });
    expect(failing.taskId).toMatch(/^swt1\./);
    // A tool error is a completed task whose result says so (the 2025 revision called it failed).
    expect(await ended(failing.taskId as string)).toMatchObject({
      taskId: failing.taskId,
      status: 'completed',
      result: { isError: true, content: [{ type: 'text', text: expect.stringContaining('failing_job') }] },
    });
    const crashing = await call('jobs__protocol_error_job');
    const crashed = await ended(crashing.taskId as string);
    expect(crashed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: expect.stringContaining('protocol_error_job crashed') },
    });
    expect(crashed.result).toBeUndefined();

    // A task waiting for input: 2025-11-25 input reaches only a waiting tasks/result, so tasks/update says so.
    const asking = (await call('jobs__confirm_delete', { filename: 'd.txt' })).taskId as string;
    const waiting = await ended(asking);
    expect(waiting).toMatchObject({ status: 'input_required', inputRequests: {} });
    await expect(
      request(client, 'tasks/update', { taskId: asking, inputResponses: { x: { action: 'accept' } } }),
    ).rejects.toMatchObject({ code: -32602, data: { reason: 'task_input_unsupported', taskId: asking } });
    const ack = await request(client, 'tasks/cancel', { taskId: asking });
    expect(Object.keys(ack).filter((k) => k !== '_meta')).toEqual([]);
    expect(await request(client, 'tasks/get', { taskId: asking })).toMatchObject({ status: 'cancelled' });
    // None of it shows the upstream's own task id.
    expect(JSON.stringify([failing, crashed, waiting])).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);

    // Another identity gets "not found" for it, as for an id nobody handed out.
    const other = await modernClient(cleanup, gateway, bob);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      await expect(request(other, method, { taskId: failing.taskId })).rejects.toMatchObject({
        code: -32602,
        data: { reason: 'task_not_found' },
      });
    }
    // A tool that may run either way runs synchronously, as the upstream decides for a plain call.
    expect(await call('jobs__slow_compute', { seconds: 0 })).toMatchObject({
      content: [{ type: 'text', text: 'Computed result after 0s' }, { type: 'resource_link' }],
    });
  });

  it('waits for the task itself for a client that does not declare the extension', async () => {
    const gateway = await startGateway(cleanup, [legacyFixture('jobs')]);
    const client = await modernClient(cleanup, gateway, alice, { tasks: false });
    const asked: unknown[] = [];
    const metas: unknown[] = [];
    client.setRequestHandler('elicitation/create', (req) => {
      asked.push(req.params.message);
      metas.push(req.params._meta);
      return { action: 'accept', content: { confirm: true } };
    });
    expect(await client.callTool({ name: 'jobs__failing_job', arguments: {} })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('failing_job') }],
    });
    await expect(client.callTool({ name: 'jobs__protocol_error_job', arguments: {} })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('protocol_error_job crashed'),
    });
    // What the task asks becomes the call's input-required result; the retry answers it.
    expect(
      await client.callTool({ name: 'jobs__confirm_delete', arguments: { filename: 'e.txt' } }),
    ).toMatchObject({
      content: [{ type: 'text', text: 'Deleted e.txt' }],
    });
    expect(asked).toEqual(['Delete e.txt?']);
    // Found from outside: the question carried the upstream's own task id (related-task `_meta`), for a
    // client that was never given a task.
    expect(JSON.stringify(metas)).not.toContain('related-task');
  });
});
