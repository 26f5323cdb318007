import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSink } from '../src/context.js';
import { ListenTracker } from '../src/downstream/listen-tracker.js';
import { GatewayError } from '../src/errors.js';
import { Gateway } from '../src/gateway.js';
import { silentLogger } from '../src/logger.js';
import { definePlugin } from '../src/plugins/define.js';
import { setupPlugins } from '../src/plugins/host.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

const sink: SessionSink = {
  id: 'modern',
  transport: 'memory',
  identity: { id: 'bob', groups: [], anonymous: false },
  notify: async () => {},
};

/** A gateway over one testkit upstream; a plugin refuses subscriptions to r/1 and records what it sees. */
async function tracked() {
  const server = new TestServer({ name: 'docs', resources: 3 });
  const { url } = await server.listenHttp();
  cleanup.push(() => server.close());
  const seen: string[] = [];
  const policy = definePlugin({
    name: 'policy',
    setup: () => ({
      request: async (ctx, next) => {
        seen.push(`${ctx.method} ${String(ctx.params.uri)}`);
        return ctx.method === 'resources/subscribe' && ctx.params.uri === 'docs+test://docs/r/1'
          ? { ok: false, error: GatewayError.forbidden('not yours') }
          : next();
      },
    }),
  });
  const gateway = new Gateway({
    upstreams: [
      { name: 'docs', prefix: true, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } },
    ],
    plugins: await setupPlugins([{ plugin: policy, options: {}, source: 'policy' }], silentLogger),
    logger: silentLogger,
  });
  cleanup.push(() => gateway.close());
  await gateway.start();
  gateway.openSession(sink);
  return { server, seen, tracker: new ListenTracker(gateway, sink, silentLogger) };
}

describe('ListenTracker', () => {
  it('refuses a listen with a forbidden URI, and undoes only the subscriptions that were made', async () => {
    const { server, seen, tracker } = await tracked();
    const refused = await tracker.hold('l1', ['docs+test://docs/r/0', 'docs+test://docs/r/1']);
    expect(refused).toMatchObject({ data: { reason: 'forbidden' } });
    expect(tracker.holding('l1')).toBe(false);
    await expect.poll(() => server.stats.subscribed['test://docs/r/0'] ?? 0).toBe(0);
    expect(seen.filter((s) => s.startsWith('resources/unsubscribe'))).toEqual([
      'resources/unsubscribe docs+test://docs/r/0',
    ]);
  });

  it('keeps subscribe and unsubscribe of one URI in order, so a quick re-listen stays subscribed', async () => {
    const { server, tracker } = await tracked();
    const first = tracker.hold('a', ['docs+test://docs/r/2']);
    tracker.release('a');
    const second = await tracker.hold('b', ['docs+test://docs/r/2']);
    await first;
    expect(second).toBeUndefined();
    expect(tracker.holding('b')).toBe(true);
    await expect.poll(() => server.stats.subscribed['test://docs/r/2']).toBe(1);
    expect(server.stats.subscribeCalls).toBe(2);
    expect(server.stats.unsubscribeCalls).toBe(1);
  });
});
