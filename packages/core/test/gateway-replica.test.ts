import { afterEach, describe, expect, it } from 'vitest';
import { GatewayReplica } from '../src/downstream/replica.js';
import { Cleanup, startGateway } from './support/gateway.js';
import { alice, legacyClient, legacyFixture, request } from './support/tasks.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const SECRET = 'shared-by-the-replicas';

/** A task created through `gateway`, by alice: its sealed id. */
async function createTask(gateway: Awaited<ReturnType<typeof startGateway>>): Promise<string> {
  const { client } = await legacyClient(cleanup, gateway, alice);
  const created = await request(client, 'tools/call', {
    name: 'jobs__confirm_delete',
    arguments: { filename: 'a.txt' },
    task: { ttl: 60_000 },
  });
  return (created.task as { taskId: string }).taskId;
}

// What the HTTP listener asks of a gateway that is one of several replicas (DESIGN §12).
describe('GatewayReplica', () => {
  it('names the advertised replica in the task ids handed out from then on, for every replica with the key', async () => {
    const here = await startGateway(cleanup, [legacyFixture('jobs')], { cursorSecret: SECRET });
    const there = new GatewayReplica(await startGateway(cleanup, [], { cursorSecret: SECRET }));
    const replica = new GatewayReplica(here);

    const before = await createTask(here);
    expect(there.holderOf('tasks/get', { taskId: before })).toBeUndefined();

    replica.advertise('http://10.0.0.7:7480');
    const after = await createTask(here);
    expect(there.holderOf('tasks/get', { taskId: after })).toBe('http://10.0.0.7:7480');
    expect(replica.holderOf('tasks/result', { taskId: after })).toBe('http://10.0.0.7:7480');
    // Only a tasks/* request continues a task; an id sealed under another key names nobody.
    expect(there.holderOf('tools/call', { taskId: after })).toBeUndefined();
    const foreign = new GatewayReplica(await startGateway(cleanup, [], { cursorSecret: 'another' }));
    expect(foreign.holderOf('tasks/get', { taskId: after })).toBeUndefined();
    expect(there.holderOf('tasks/get', { taskId: 'swt1.made-up' })).toBeUndefined();
    expect(there.holderOf('tools/call', { requestState: 'made-up' })).toBeUndefined();
  });

  it('refuses what is not a Gateway', () => {
    expect(() => new GatewayReplica({} as never)).toThrow(/expected a Gateway/);
  });
});
