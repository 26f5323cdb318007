import { eventually, TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSink } from '../src/context.js';
import { GatewayError } from '../src/errors.js';
import { Gateway } from '../src/gateway.js';
import { type Logger, silentLogger } from '../src/logger.js';
import { definePlugin } from '../src/plugins/define.js';
import { PluginError } from '../src/plugins/error.js';
import { setupPlugins } from '../src/plugins/host.js';
import { testRequest } from '../src/testing.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

const entry = (plugin: unknown, options: unknown = {}) => ({ plugin, options, source: './test-plugin.js' });

async function loadError(entries: ReturnType<typeof entry>[]): Promise<PluginError> {
  const error = await setupPlugins(entries, silentLogger).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PluginError);
  return error as PluginError;
}

describe('setupPlugins: metadata is checked at load, with coded errors', () => {
  it('refuses what is not a plugin', async () => {
    expect((await loadError([entry({ name: 'x', setup: () => ({}) })])).code).toBe('PLUGIN_INVALID');
    expect((await loadError([entry(undefined)])).message).toMatch(/definePlugin/);
  });

  it('refuses duplicates, missing requirements, incompatible core ranges and unknown hooks', async () => {
    const a = definePlugin({ name: 'a', setup: () => ({}) });
    expect((await loadError([entry(a), entry(a)])).code).toBe('PLUGIN_DUPLICATE');
    const needsA = definePlugin({ name: 'b', requires: ['a'], setup: () => ({}) });
    const missing = await loadError([entry(needsA), entry(a)]);
    expect(missing.code).toBe('PLUGIN_MISSING_DEPENDENCY');
    expect(missing.message).toContain('list a before it');
    const future = definePlugin({ name: 'future', core: '^9.0.0', setup: () => ({}) });
    expect((await loadError([entry(future)])).code).toBe('PLUGIN_INCOMPATIBLE');
    const typo = definePlugin({ name: 'typo', setup: () => ({ onRequest: () => {} }) as never });
    const unknown = await loadError([entry(typo)]);
    expect(unknown.code).toBe('PLUGIN_UNKNOWN_HOOK');
    expect(unknown.message).toContain('"onRequest"');
    const broken = definePlugin({
      name: 'broken',
      setup: () => {
        throw new Error('no database');
      },
    });
    expect((await loadError([entry(broken)])).message).toContain('no database');
  });

  it('passes options and a scoped logger, and tells a plugin what was loaded before it', async () => {
    const seen: unknown[] = [];
    const a = definePlugin({ name: 'a', setup: () => ({}) });
    const b = definePlugin<{ limit: number }>({
      name: 'b',
      requires: ['a'],
      core: '^0.1.0',
      setup: (options, context) => {
        seen.push(options, context.loaded);
        return {};
      },
    });
    const loaded = await setupPlugins([entry(a), entry(b, { limit: 3 })], silentLogger);
    expect(loaded.map((p) => p.name)).toEqual(['a', 'b']);
    expect(seen).toEqual([{ limit: 3 }, ['a']]);
  });
});

describe('plugins in the gateway', () => {
  async function gatewayWith(plugins: Parameters<typeof setupPlugins>[0], logger: Logger = silentLogger) {
    const servers = ['one', 'two'].map((name) => new TestServer({ name, resources: 2 }));
    const urls = await Promise.all(servers.map(async (s) => (await s.listenHttp()).url));
    for (const s of servers) cleanup.push(() => s.close());
    const gateway = new Gateway({
      upstreams: servers.map((s, i) => ({
        name: s.options.name,
        prefix: true,
        timeoutMs: 5_000,
        transport: { kind: 'http' as const, url: urls[i]!, headers: {} },
      })),
      plugins: await setupPlugins(plugins, silentLogger),
      logger,
    });
    cleanup.push(() => gateway.close());
    await gateway.start();
    return { gateway, servers };
  }

  const session: SessionSink = {
    id: 's1',
    transport: 'memory',
    identity: { id: 'test', groups: [], anonymous: true },
    notify: async () => {},
  };
  const request = (method: string, params: Record<string, unknown> = {}) =>
    testRequest(method, params, { session });

  it('runs request middleware as an onion, first listed outermost, errors as values', async () => {
    const trace: string[] = [];
    const outer = definePlugin({
      name: 'outer',
      setup: () => ({
        request: async (ctx, next) => {
          trace.push(`outer>${ctx.method}`);
          const outcome = await next();
          trace.push(`outer<${outcome.ok ? 'ok' : outcome.error.reason}`);
          return outcome;
        },
      }),
    });
    const deny = definePlugin({
      name: 'deny',
      setup: () => ({
        request: async (ctx, next) => {
          trace.push('deny');
          if (String(ctx.params.uri ?? '').includes('/r/1')) {
            return { ok: false, error: GatewayError.forbidden('r/1 is off limits') };
          }
          return next();
        },
      }),
    });
    const { gateway } = await gatewayWith([entry(outer), entry(deny)]);
    const allowed = await gateway.handle(request('resources/read', { uri: 'one+test://one/r/0' }));
    expect(allowed.ok).toBe(true);
    const denied = await gateway.handle(request('resources/read', { uri: 'one+test://one/r/1' }));
    expect(denied).toMatchObject({ ok: false, error: { code: -32007, data: { reason: 'forbidden' } } });
    expect(trace).toEqual([
      'outer>resources/read',
      'deny',
      'outer<ok',
      'outer>resources/read',
      'deny',
      'outer<forbidden',
    ]);
  });

  it('shows upstream-call middleware each call to each upstream, and notifications and lifecycle', async () => {
    const calls: string[] = [];
    const notes: string[] = [];
    const lifecycle: string[] = [];
    const watch = (name: string) =>
      definePlugin({
        name,
        setup: () => ({
          upstreamCall: async (call, next) => {
            calls.push(`${name}:${call.upstream}:${call.method}`);
            return next();
          },
          notification: (n) => notes.push(`${name}:${n.upstream}:${n.method}`),
          ready: () => void lifecycle.push(`ready:${name}`),
          close: () => void lifecycle.push(`close:${name}`),
        }),
      });
    const { gateway, servers } = await gatewayWith([entry(watch('p1')), entry(watch('p2'))]);
    expect(lifecycle).toEqual(['ready:p1', 'ready:p2']);
    calls.length = 0;
    await gateway.handle(request('resources/list'));
    expect(calls.sort()).toEqual(
      [
        'p1:one:resources/list',
        'p1:two:resources/list',
        'p2:one:resources/list',
        'p2:two:resources/list',
      ].sort(),
    );
    gateway.openSession(session);
    await gateway.handle(request('resources/subscribe', { uri: 'two+test://two/r/0' }));
    await servers[1]!.triggerUpdated('test://two/r/0');
    await expect
      .poll(() => notes, { timeout: 5_000 })
      .toEqual(['p1:two:notifications/resources/updated', 'p2:two:notifications/resources/updated']);
    await gateway.close();
    expect(lifecycle).toEqual(['ready:p1', 'ready:p2', 'close:p2', 'close:p1']);
  });

  it('logs a ready or close hook that throws, synchronously or not, and still runs the others', async () => {
    const lifecycle: string[] = [];
    const warnings: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (message, fields) => void warnings.push(`${message}: ${fields?.plugin} ${fields?.error}`),
      child: () => logger,
    };
    const faulty = (name: string, fail: (hook: string) => Promise<void>) =>
      definePlugin({ name, setup: () => ({ ready: () => fail('ready'), close: () => fail('close') }) });
    const recording = (name: string) =>
      definePlugin({
        name,
        setup: () => ({
          ready: () => void lifecycle.push(`ready:${name}`),
          close: () => void lifecycle.push(`close:${name}`),
        }),
      });
    const { gateway } = await gatewayWith(
      [
        entry(recording('first')),
        entry(
          faulty('sync', (hook) => {
            throw new Error(`sync ${hook}`);
          }),
        ),
        entry(faulty('async', (hook) => Promise.reject(new Error(`async ${hook}`)))),
        entry(recording('last')),
      ],
      logger,
    );
    expect(lifecycle).toEqual(['ready:first', 'ready:last']);
    await gateway.close();
    expect(lifecycle).toEqual(['ready:first', 'ready:last', 'close:last', 'close:first']);
    expect(warnings).toEqual([
      'plugin ready hook failed: sync Error: sync ready',
      'plugin ready hook failed: async Error: async ready',
      'plugin close hook failed: async Error: async close',
      'plugin close hook failed: sync Error: sync close',
    ]);
  });

  it('shows upstream-call middleware the downstream request, and lets it fetch following pages with call.repeat(params)', async () => {
    const seen: { identity?: string; cursor?: unknown }[] = [];
    const pager = definePlugin({
      name: 'pager',
      setup: () => ({
        upstreamCall: async (call, next) => {
          seen.push({ identity: call.request?.identity.id, cursor: call.params?.cursor });
          if (call.method !== 'resources/list' || call.upstream !== 'one') return next();
          // Skip the first page of `one`: ask for the following one instead.
          const first = await next();
          if (!first.ok) return first;
          return call.repeat({ ...call.params, cursor: first.result.nextCursor });
        },
      }),
    });
    const servers = [new TestServer({ name: 'one', resources: 4, pageSize: 2 })];
    const url = (await servers[0]!.listenHttp()).url;
    cleanup.push(() => servers[0]!.close());
    const gateway = new Gateway({
      upstreams: [
        { name: 'one', prefix: true, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } },
      ],
      plugins: await setupPlugins([entry(pager)], silentLogger),
      logger: silentLogger,
    });
    cleanup.push(() => gateway.close());
    await gateway.start();
    const outcome = await gateway.handle(request('resources/list'));
    expect(outcome.ok && outcome.result.resources).toEqual([
      expect.objectContaining({ uri: 'one+test://one/r/2' }),
      expect.objectContaining({ uri: 'one+test://one/r/3' }),
    ]);
    expect(outcome.ok && outcome.result.nextCursor).toBeUndefined();
    expect(seen).toContainEqual({ identity: 'test', cursor: undefined });
  });

  it('gives plugins a gateway view: routes, exposed URIs, and coherent watches through the shared table', async () => {
    let view: import('../src/plugins/define.js').PluginGateway | undefined;
    const probe = definePlugin({
      name: 'probe',
      setup: (_options, context) => {
        view = context.gateway;
        expect(() => context.gateway.route('one+test://one/r/0')).toThrow(/not running yet/);
        expect(context.baseDir).toBe(process.cwd());
        expect(typeof context.tracer.startActiveSpan).toBe('function');
        expect(typeof context.meter.createCounter).toBe('function');
        return {};
      },
    });
    const { gateway, servers } = await gatewayWith([entry(probe)]);
    const gw = view!;
    expect(gw.route('two+test://two/r/1')).toEqual({ upstream: 'two', uri: 'test://two/r/1' });
    expect(gw.route('nowhere+test://x')).toBeUndefined();
    expect(gw.exposeUri('one', 'test://one/r/0')).toBe('one+test://one/r/0');
    expect(gw.canSubscribe('one')).toBe(true);

    // A client and a plugin watch the same URI: one upstream subscription, released by the last.
    let invalidations = 0;
    gateway.openSession(session);
    await gateway.handle(request('resources/subscribe', { uri: 'two+test://two/r/0' }));
    const release = await gw.watch('two+test://two/r/0', () => {
      invalidations += 1;
    });
    expect(gateway.subscriptionCount).toBe(1);
    await servers[1]!.triggerUpdated('test://two/r/0');
    await expect.poll(() => invalidations, { timeout: 5_000 }).toBe(1);
    await gateway.handle(request('resources/unsubscribe', { uri: 'two+test://two/r/0' }));
    expect(gateway.subscriptionCount).toBe(1);
    await release();
    await release(); // idempotent
    expect(gateway.subscriptionCount).toBe(0);
    await expect(gw.watch('nowhere+test://x', () => {})).rejects.toMatchObject({
      data: { reason: 'resource_not_found' },
    });
  });

  it('invalidates watches when their upstream disconnects (updates may have been missed)', async () => {
    let view: import('../src/plugins/define.js').PluginGateway | undefined;
    const probe = definePlugin({
      name: 'probe',
      setup: (_options, context) => {
        view = context.gateway;
        return {};
      },
    });
    const { gateway, servers } = await gatewayWith([entry(probe)]);
    let invalidated = false;
    await view!.watch('one+test://one/r/1', () => {
      invalidated = true;
    });
    await servers[0]!.close();
    // An HTTP upstream's death is seen at the next exchange with it.
    await gateway.handle(request('resources/read', { uri: 'one+test://one/r/1' }));
    await expect.poll(() => invalidated, { timeout: 10_000 }).toBe(true);
  });
});

describe('CORE_VERSION', () => {
  it('is the package version (plugins are checked against it, so a release must bump both)', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const { CORE_VERSION } = await import('../src/version.js');
    expect(CORE_VERSION).toBe(pkg.version);
  });
});

describe('setupPlugins: a plugin that misbehaves while setting up (found from outside)', () => {
  it('fails a setup that never finishes, naming the plugin, and closes it should it finish later', async () => {
    // A setup that never settled let the gateway exit 0 with nothing said, and queued every later reload.
    let finish: (hooks: unknown) => void = () => {};
    const closed: string[] = [];
    const slow = definePlugin({
      name: 'slow',
      setup: () => new Promise((resolve) => (finish = resolve as (hooks: unknown) => void)),
    });
    await expect(setupPlugins([entry(slow)], silentLogger, { setupTimeoutMs: 50 })).rejects.toMatchObject({
      code: 'PLUGIN_SETUP_FAILED',
      plugin: 'slow',
      message: 'Plugin slow failed to set up: it did not finish within 50 ms',
    });
    finish({ close: () => void closed.push('slow') });
    await eventually(() => closed.length > 0 || undefined, 'the late setup closed');
  });

  it.each([
    [
      'a request hook that is no function',
      { request: 42 },
      'returned a "request" hook that is a number, not a function',
    ],
    [
      'an admin hook that is no object',
      { admin: 'x' },
      'returned a "admin" hook that is a string, not an object',
    ],
    ['a string', 'abc', 'setup returned a string, not an object of hooks'],
    ['an array', [() => {}], 'setup returned an array, not an object of hooks'],
  ])('refuses a setup that returns %s, naming the plugin and the hook', async (_, hooks, message) => {
    const odd = definePlugin({ name: 'odd', setup: () => hooks as never });
    const refused = setupPlugins([entry(odd)], silentLogger);
    await expect(refused).rejects.toBeInstanceOf(PluginError);
    await expect(refused).rejects.toMatchObject({ code: 'PLUGIN_INVALID_HOOK', plugin: 'odd' });
    await expect(refused).rejects.toThrow(message);
  });
});
