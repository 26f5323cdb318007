import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { alice, bob, Cleanup, connect, gatewayWith, type UpstreamSpec } from './support.js';

// What a caller gets back beside its answers — completion values, notifications — reveals nothing it may
// not read: a real gateway, a testkit upstream over HTTP, official SDK clients.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const DOCS: UpstreamSpec = {
  name: 'docs',
  options: {
    name: 'docs',
    resources: 3,
    templates: 1,
    completions: ['pub-1', 'secret-1', 'pub-2', 'secret-2'],
  },
};
const policy = {
  default: 'allow' as const,
  rules: [
    {
      effect: 'deny' as const,
      clients: ['bob'],
      uris: ['docs+test://docs/r/1', 'docs+test://docs/items/secret-*'],
    },
  ],
};

const complete = (client: Client, value: string) =>
  client.request({
    method: 'completion/complete',
    params: {
      ref: { type: 'ref/resource', uri: 'docs+test://docs/items/{id}' },
      argument: { name: 'id', value },
    },
  });

describe('what a denied caller gets besides answers', () => {
  it('is not offered completion values of a template that lead to resources it may not read', async () => {
    const { gateway } = await gatewayWith(cleanup, policy, [DOCS]);
    const bobClient = await connect(cleanup, gateway, bob);
    expect(await complete(bobClient, '')).toEqual({
      completion: { values: ['pub-1', 'pub-2'], total: 2, hasMore: false },
    });
    expect(await complete(bobClient, 'secret')).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
    // Every value offered can be read.
    await expect(
      bobClient.request({ method: 'resources/read', params: { uri: 'docs+test://docs/items/secret-1' } }),
    ).rejects.toMatchObject({ code: -32007 });
    expect((await complete(await connect(cleanup, gateway, alice), '')).completion.values).toHaveLength(4);
  });

  it('hears resources/updated only for what it subscribed to, and list_changed without items', async () => {
    const { gateway, server } = await gatewayWith(cleanup, policy, [DOCS]);
    const aliceClient = await connect(cleanup, gateway, alice);
    const bobClient = await connect(cleanup, gateway, bob);
    const heard = { alice: [] as unknown[], bob: [] as unknown[], bobChanges: [] as unknown[] };
    aliceClient.setNotificationHandler(
      'notifications/resources/updated',
      (n) => void heard.alice.push(n.params.uri),
    );
    bobClient.setNotificationHandler(
      'notifications/resources/updated',
      (n) => void heard.bob.push(n.params.uri),
    );
    bobClient.setNotificationHandler(
      'notifications/resources/list_changed',
      (n) => void heard.bobChanges.push(n.params ?? {}),
    );
    await aliceClient.request({ method: 'resources/subscribe', params: { uri: 'docs+test://docs/r/1' } });
    await expect(
      bobClient.request({ method: 'resources/subscribe', params: { uri: 'docs+test://docs/r/1' } }),
    ).rejects.toMatchObject({ code: -32007 });
    await bobClient.request({ method: 'resources/subscribe', params: { uri: 'docs+test://docs/r/2' } });
    await server('docs').triggerUpdated('test://docs/r/1');
    await server('docs').triggerUpdated('test://docs/r/2');
    // Updates are relayed in order: by the time bob hears r/2, a misrouted r/1 would have arrived.
    await expect.poll(() => heard.bob, { timeout: 5_000 }).toEqual(['docs+test://docs/r/2']);
    await expect.poll(() => heard.alice, { timeout: 5_000 }).toEqual(['docs+test://docs/r/1']);

    await server('docs').triggerListChanged();
    await expect.poll(() => heard.bobChanges, { timeout: 5_000 }).toEqual([{}]);
    const listed = (await bobClient.request({ method: 'resources/list', params: {} })).resources.map(
      (r) => r.uri,
    );
    expect(listed).toEqual(['docs+test://docs/r/0', 'docs+test://docs/r/2']);
  });
});
