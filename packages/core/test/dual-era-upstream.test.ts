import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connect,
  eventually,
  httpUpstream,
  startGateway,
  upstreamConfig,
} from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('an upstream that answers both eras', () => {
  it('loses no capability: resources it follows only on its legacy session path can still be subscribed to', async () => {
    const dual = await httpUpstream(cleanup, {
      name: 'dual',
      resources: 2,
      modern: true,
      modernSubscribe: false,
    });
    const gateway = await startGateway(cleanup, [upstreamConfig('dual', dual.url)]);
    expect(gateway.status()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    const client = await connect(cleanup, gateway);
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await client.subscribeResource({ uri: 'dual+test://dual/r/1' });
    expect(dual.server.stats.subscribed['test://dual/r/1']).toBe(1);
    await dual.server.triggerUpdated('test://dual/r/1');
    await eventually(() => updates.length > 0 || undefined, 'the update');
    expect(updates).toEqual(['dual+test://dual/r/1']);
    // Reads and lists still go over the modern side.
    const read = await client.readResource({ uri: 'dual+test://dual/r/0' });
    expect(read.contents[0]).toMatchObject({ uri: 'dual+test://dual/r/0' });
    await client.unsubscribeResource({ uri: 'dual+test://dual/r/1' });
    await eventually(
      () => dual.server.stats.subscribed['test://dual/r/1'] === 0 || undefined,
      'unsubscribed',
    );
  });

  it('keeps no legacy session when the modern side follows resources itself', async () => {
    const both = await httpUpstream(cleanup, { name: 'both', resources: 1, modern: true });
    await startGateway(cleanup, [upstreamConfig('both', both.url)]);
    expect(both.server.stats.requests.initialize ?? 0).toBe(0);
  });
});
