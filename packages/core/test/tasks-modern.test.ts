import { FixtureState, startConformanceHttp } from '@switchyard/testkit/conformance';
import { afterEach, describe, expect, it } from 'vitest';
import { testRequest } from '../src/testing.js';
import { restoreTaskResult } from '../src/upstream/task-results.js';
import { Cleanup, eventually, startGateway } from './support/gateway.js';
import { alice, bob, legacyFixture, modernClient, modernFixture, request, TASKS } from './support/tasks.js';

const cleanup = new Cleanup();
const DECLARED = { extensions: { [TASKS]: {} } };
afterEach(() => cleanup.run());

// The 2026-07-28 Tasks extension (SEP-2663) through the gateway: the conformance fixture over HTTP (the
// gateway speaks 2026-07-28 to it) and 2026-07-28 SDK clients of two identities.
describe('tasks, 2026-07-28 client and upstream', () => {
  it('declares the extension, creates tasks with sealed ids and routes get, update and cancel', async () => {
    const gateway = await startGateway(cleanup, [await modernFixture(cleanup, 'jobs')]);
    const client = await modernClient(cleanup, gateway, alice);
    expect(client.getProtocolEra()).toBe('modern');
    const capabilities = client.getServerCapabilities() as Record<string, unknown>;
    expect(capabilities.extensions).toMatchObject({ [TASKS]: {} });
    expect(capabilities.tasks).toBeUndefined();

    const call = async (name: string, args: Record<string, unknown>) =>
      restoreTaskResult(await request(client, 'tools/call', { name, arguments: args }));
    const created = await call('jobs__confirm_delete', { filename: 'c.txt' });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number) });
    const taskId = created.taskId as string;
    expect(taskId).toMatch(/^swt1\./);
    const waiting = await eventually(async () => {
      const task = await request(client, 'tasks/get', { taskId });
      return task.status === 'input_required' ? task : undefined;
    }, 'input_required');
    expect(waiting.taskId).toBe(taskId);
    const [key] = Object.keys(waiting.inputRequests as object);
    await request(client, 'tasks/update', {
      taskId,
      inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } },
    });
    const done = await eventually(async () => {
      const task = await request(client, 'tasks/get', { taskId });
      return task.status === 'completed' ? task : undefined;
    }, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Deleted c.txt' }] });

    const slow = (await call('jobs__slow_compute', { seconds: 30 })).taskId as string;
    const ack = await request(client, 'tasks/cancel', { taskId: slow });
    expect(Object.keys(ack).filter((k) => k !== '_meta')).toEqual([]); // an empty acknowledgement
    await eventually(
      async () => (await request(client, 'tasks/get', { taskId: slow })).status === 'cancelled' || undefined,
      'cancelled',
    );

    // Another identity gets "not found" for it, as for an id nobody handed out.
    const other = await modernClient(cleanup, gateway, bob);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      for (const id of [taskId, 'swt1.unknown']) {
        await expect(request(other, method, { taskId: id })).rejects.toMatchObject({ code: -32602 });
      }
    }
    // The 2025-11-25 methods are not part of the extension (the SDK's own codec refuses them on the wire
    // first: the conformance run checks that; this is the gateway's answer behind it).
    for (const method of ['tasks/result', 'tasks/list']) {
      const outcome = await gateway.handle(
        testRequest(
          method,
          { taskId },
          { identity: alice, client: { era: 'modern', capabilities: DECLARED } },
        ),
      );
      expect(outcome).toMatchObject({ ok: false, error: { code: -32601 } });
    }
  });

  it('refuses the tasks methods to a client that does not declare the extension (-32021)', async () => {
    const gateway = await startGateway(cleanup, [await modernFixture(cleanup, 'jobs')]);
    const client = await modernClient(cleanup, gateway, alice, { tasks: false });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      await expect(
        request(client, method, { taskId: 'x', inputResponses: {} }),
        method,
      ).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      });
    }
    // A task-supporting tool runs synchronously; a task-only one is refused by the upstream, as it says.
    expect(
      await request(client, 'tools/call', { name: 'jobs__slow_compute', arguments: { seconds: 0 } }),
    ).toMatchObject({
      content: [{ type: 'text' }, { type: 'resource_link', uri: 'jobs+test://static-text' }],
    });
    await expect(
      request(client, 'tools/call', { name: 'jobs__failing_job', arguments: {} }),
    ).rejects.toMatchObject({
      code: -32021,
    });
  });

  it('declares nothing about tasks, and answers -32601, when no upstream runs tool calls as tasks', async () => {
    const gateway = await startGateway(cleanup, []);
    expect(gateway.capabilities('legacy').tasks).toBeUndefined();
    expect(gateway.capabilities('modern').extensions).toBeUndefined();
    const client = await modernClient(cleanup, gateway, alice);
    await expect(request(client, 'tasks/get', { taskId: 'x' })).rejects.toMatchObject({ code: -32601 });
  });

  it('tells a 2026-07-28 client of the extension when a 2025-only upstream runs tool calls as tasks', async () => {
    // Its tasks are bridged both ways (tasks-bridge-legacy.test.ts).
    const gateway = await startGateway(cleanup, [legacyFixture('old')]);
    expect(gateway.capabilities('modern').extensions).toMatchObject({ [TASKS]: {} });
    expect(gateway.capabilities('legacy').tasks).toBeDefined();
  });
});

describe('a task its upstream no longer knows (found from outside: after a restart)', () => {
  it("is task_not_found with the caller's own id, never the upstream's", async () => {
    // The upstream's "Task not found (<its own id>)" went to the caller as it was: no reason, and the
    // upstream's task id the sealed id exists to keep from the caller.
    const first = await startConformanceHttp(new FixtureState());
    const port = Number(new URL(first.url).port);
    cleanup.add(() => first.close());
    const gateway = await startGateway(cleanup, [
      {
        name: 'jobs',
        prefix: true,
        timeoutMs: 10_000,
        transport: { kind: 'http', url: first.url, headers: {} },
      },
    ]);
    const client = await modernClient(cleanup, gateway, alice);
    const created = restoreTaskResult(
      await request(client, 'tools/call', { name: 'jobs__slow_compute', arguments: { seconds: 30 } }),
    );
    const taskId = created.taskId as string;
    // The same server again, on the same port, with none of its tasks.
    await first.close();
    const again = await startConformanceHttp(new FixtureState(), { port });
    cleanup.add(() => again.close());
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const error = await eventually(
        () =>
          request(client, method, { taskId }).then(
            () => undefined,
            (e: { code?: number; data?: { reason?: string } }) =>
              e.data?.reason === 'upstream_unavailable' ? undefined : e,
          ),
        `${method} answered by the restarted upstream`,
      );
      expect(error).toMatchObject({ code: -32602, data: { reason: 'task_not_found', taskId } });
      expect(JSON.stringify(error)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    }
  });
});
