import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSink } from '../src/context.js';
import { Gateway } from '../src/gateway.js';
import { silentLogger } from '../src/logger.js';
import { definePlugin } from '../src/plugins/define.js';
import { PluginError } from '../src/plugins/error.js';
import { type LoadedPlugin, setupPlugins } from '../src/plugins/host.js';
import { testRequest } from '../src/testing.js';

// Plugins replaced while the gateway runs (a config reload whose plugin options changed, DESIGN §10).

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

const entry = (plugin: unknown, options: unknown = {}) => ({ plugin, options, source: './test-plugin.js' });

const notified: string[] = [];
const session: SessionSink = {
  id: 's1',
  transport: 'memory',
  identity: { id: 'test', groups: [], anonymous: true },
  notify: async (method) => void notified.push(method),
};
const request = (params: Record<string, unknown>) => testRequest('resources/read', params, { session });

async function gatewayWith(plugins: LoadedPlugin[]): Promise<Gateway> {
  const server = new TestServer({ name: 'one', resources: 2 });
  const { url } = await server.listenHttp();
  cleanup.push(() => server.close());
  const gateway = new Gateway({
    upstreams: [
      { name: 'one', prefix: true, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } },
    ],
    plugins,
    logger: silentLogger,
    listChangedDebounceMs: 1,
  });
  cleanup.push(() => gateway.close());
  await gateway.start();
  return gateway;
}

/** A plugin that records its lifecycle and the upstream calls it sees, and holds requests that ask it to. */
function recorder(events: string[], held: Promise<void>) {
  return definePlugin<{ tag: string }>({
    name: 'tagged',
    setup: ({ tag }) => {
      events.push(`setup:${tag}`);
      return {
        request: async (ctx, next) => {
          if (ctx.params._hold) await held;
          return next();
        },
        upstreamCall: async (_call, next) => {
          events.push(`call:${tag}`);
          return next();
        },
        ready: () => void events.push(`ready:${tag}`),
        close: () => void events.push(`close:${tag}`),
      };
    },
  });
}

describe('Gateway.replacePlugins', () => {
  it('runs new requests through the new set, lets requests in flight finish through the old one, then closes the instances not kept', async () => {
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tagged = recorder(events, held);
    const kept = definePlugin({
      name: 'kept',
      setup: () => ({ close: () => void events.push('close:kept') }),
    });
    const first = await setupPlugins([entry(kept), entry(tagged, { tag: 'old' })], silentLogger);
    const gateway = await gatewayWith(first);
    gateway.openSession(session);
    expect(events.splice(0)).toEqual(['setup:old', 'ready:old']);

    const inFlight = gateway.handle(request({ uri: 'one+test://one/r/0', _hold: true }));
    const second = await setupPlugins([entry(kept), entry(tagged, { tag: 'new' })], silentLogger, {
      reuse: (e) => (e.plugin === kept ? first[0] : undefined),
    });
    expect(second[0]).toBe(first[0]);
    notified.length = 0;
    const { closed } = await gateway.replacePlugins(second, 10_000);
    expect(events.splice(0)).toEqual(['setup:new', 'ready:new']);

    expect((await gateway.handle(request({ uri: 'one+test://one/r/1' }))).ok).toBe(true);
    expect(events.splice(0)).toEqual(['call:new']);
    // The held request entered through the old set: its upstream call goes through the old instance,
    // which is closed only after it has finished.
    release();
    expect((await inFlight).ok).toBe(true);
    await closed;
    expect(events.splice(0)).toEqual(['call:old', 'close:old']);
    // Lists may be filtered differently now: sessions are told to list again.
    await expect.poll(() => notified).toContain('notifications/resources/list_changed');

    await gateway.close();
    expect(events).toEqual(['close:new', 'close:kept']);
  });

  it('closes the old instances after drainMs even while a request still runs through them', async () => {
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tagged = recorder(events, held);
    const gateway = await gatewayWith(await setupPlugins([entry(tagged, { tag: 'old' })], silentLogger));
    const inFlight = gateway.handle(request({ uri: 'one+test://one/r/0', _hold: true }));
    const next = await setupPlugins([entry(tagged, { tag: 'new' })], silentLogger);
    const { closed } = await gateway.replacePlugins(next, 20);
    await closed;
    expect(events).toContain('close:old');
    release();
    expect((await inFlight).ok).toBe(true);
    await gateway.close();
    expect(events.filter((e) => e === 'close:old')).toHaveLength(1);
  });

  it('closes retiring instances once when the gateway closes before their requests finish', async () => {
    const events: string[] = [];
    const tagged = recorder(events, new Promise<void>(() => {}));
    const gateway = await gatewayWith(await setupPlugins([entry(tagged, { tag: 'old' })], silentLogger));
    void gateway.handle(request({ uri: 'one+test://one/r/0', _hold: true }));
    await gateway.replacePlugins(await setupPlugins([entry(tagged, { tag: 'new' })], silentLogger), 60_000);
    await gateway.close();
    expect(events.filter((e) => e.startsWith('close:')).sort()).toEqual(['close:new', 'close:old']);
    await expect(gateway.replacePlugins([], 0)).rejects.toThrow(/closed/);
  });
});

describe('setupPlugins when one plugin fails', () => {
  it('closes the instances it had already set up, and a plugin that returned unknown hooks', async () => {
    const closed: string[] = [];
    const fine = definePlugin({ name: 'fine', setup: () => ({ close: () => void closed.push('fine') }) });
    const typo = definePlugin({
      name: 'typo',
      setup: () => ({ close: () => void closed.push('typo'), onRequest: () => {} }) as never,
    });
    const broken = definePlugin({
      name: 'broken',
      setup: () => {
        throw new Error('no database');
      },
    });
    await expect(setupPlugins([entry(fine), entry(broken)], silentLogger)).rejects.toBeInstanceOf(
      PluginError,
    );
    expect(closed).toEqual(['fine']);
    closed.length = 0;
    await expect(setupPlugins([entry(fine), entry(typo)], silentLogger)).rejects.toMatchObject({
      code: 'PLUGIN_UNKNOWN_HOOK',
    });
    expect(closed.sort()).toEqual(['fine', 'typo']);
  });

  it('does not close a reused (running) instance', async () => {
    const closed: string[] = [];
    const fine = definePlugin({ name: 'fine', setup: () => ({ close: () => void closed.push('fine') }) });
    const broken = definePlugin({
      name: 'broken',
      setup: () => {
        throw new Error('no database');
      },
    });
    const [running] = await setupPlugins([entry(fine)], silentLogger);
    await expect(
      setupPlugins([entry(fine), entry(broken)], silentLogger, {
        reuse: (e) => (e.plugin === fine ? running : undefined),
      }),
    ).rejects.toBeInstanceOf(PluginError);
    expect(closed).toEqual([]);
  });
});
