import { fileURLToPath } from 'node:url';
import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { Gateway, setupPlugins, silentLogger } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import access, { type AccessOptions } from '../src/index.js';
import { alice, bob, Cleanup, connect, FORBIDDEN } from './support.js';

// Tasks under access rules: a task's methods are judged as a call of the tool that created it. The
// testkit's conformance fixture, 2025-only over stdio (its tasks utility lists tasks), behind a gateway.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const FIXTURE_CLI = fileURLToPath(new URL('../../testkit/dist/conformance/cli.js', import.meta.url));
const RAW: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

const request = (client: Client, method: string, params: Record<string, unknown>) =>
  client.request({ method, params } as never, RAW);
const plugins = (options: AccessOptions) =>
  setupPlugins([{ plugin: access, options, source: 'test' }], silentLogger);

describe('access rules on tasks', () => {
  it('judges a task as its tool: a denied tool’s tasks are forbidden and vanish from tasks/list', async () => {
    const gateway = new Gateway({
      upstreams: [
        {
          name: 'jobs',
          prefix: true,
          timeoutMs: 10_000,
          transport: {
            kind: 'stdio',
            command: process.execPath,
            args: [FIXTURE_CLI, '--stdio', '--legacy'],
            env: {},
          },
        },
      ],
      plugins: await plugins({ default: 'allow', rules: [] }),
      logger: silentLogger,
    });
    cleanup.add(() => gateway.close());
    await gateway.start();
    const client = await connect(cleanup, gateway, alice);
    const create = async (name: string, args: Record<string, unknown>) =>
      ((await request(client, 'tools/call', { name, arguments: args, task: {} })).task as { taskId: string })
        .taskId;
    const slow = await create('jobs__slow_compute', { seconds: 60 });
    const confirm = await create('jobs__confirm_delete', { filename: 'x' });
    const listed = async () =>
      ((await request(client, 'tasks/list', {})).tasks as { taskId: string }[]).map((t) => t.taskId);
    expect(await listed()).toEqual([slow, confirm]);

    // The rules change (a reload): alice may no longer call jobs__slow_compute.
    await gateway.replacePlugins(
      await plugins({
        default: 'allow',
        rules: [{ effect: 'deny', clients: ['alice'], tools: ['jobs__slow_compute'] }],
      }),
    );
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/result']) {
      await expect(request(client, method, { taskId: slow }), method).rejects.toMatchObject({
        ...FORBIDDEN,
        message: expect.stringContaining('jobs__slow_compute'),
      });
    }
    expect(await request(client, 'tasks/get', { taskId: confirm })).toMatchObject({
      status: 'input_required',
    });
    expect(await listed()).toEqual([confirm]);
    await expect(create('jobs__slow_compute', { seconds: 0 })).rejects.toMatchObject(FORBIDDEN);

    // Nobody else can use alice's tasks, whatever the rules say of the tool.
    const other = await connect(cleanup, gateway, bob);
    await expect(request(other, 'tasks/get', { taskId: confirm })).rejects.toMatchObject({ code: -32602 });
    expect((await request(other, 'tasks/list', {})).tasks).toEqual([]);
    await request(client, 'tasks/cancel', { taskId: confirm });
  });
});
