import { fileURLToPath } from 'node:url';
import { Gateway, type LoadedPlugin, type Logger, MemoryStore, silentLogger } from '@switchyard/core';
import { testRequest } from '@switchyard/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { Authenticator, AuthOutcome } from '../src/auth/authenticator.js';
import { LiveAuthenticator } from '../src/auth/live-authenticator.js';
import { ConfigError, type GatewayConfig } from '../src/config/load.js';
import { DEFAULT_LIMITS } from '../src/listeners/limits.js';
import { loadPlugins } from '../src/plugins.js';
import { ConfigReloader } from '../src/reload/apply.js';
import { describeReload, diffConfig } from '../src/reload/diff.js';

// The reload logic without a process: what a reload keeps, warns about and records.

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const base: GatewayConfig = {
  source: '/etc/switchyard.json',
  baseDir: fixtures,
  listen: { stdio: false },
  upstreams: [],
  plugins: [
    { specifier: './whoami-plugin.js', options: {} },
    { specifier: './deny-plugin.js', options: { contains: 'secret' } },
  ],
  limits: { ...DEFAULT_LIMITS },
};

/** A read of `uri` by an anonymous caller, straight into the gateway (no listener). */
const read = (uri: string) => testRequest('resources/read', { uri });

function stubAuth(closed: string[], name: string): Authenticator {
  return {
    anonymous: { id: name, groups: [], anonymous: true },
    authenticate: async (): Promise<AuthOutcome> => ({
      ok: true,
      identity: { id: name, groups: [], anonymous: false },
    }),
    serveMetadata: () => false,
    close: () => void closed.push(name),
  };
}

function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const logger = {
    ...silentLogger,
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
  return { ...logger, child: () => logger } as Logger;
}

async function reloaderFor(next: () => GatewayConfig) {
  const lines: string[] = [];
  const plugins = await loadPlugins(base, silentLogger, new MemoryStore());
  const gateway = new Gateway({ upstreams: [], logger: silentLogger, plugins });
  closing.push(() => gateway.close());
  await gateway.start();
  const closed: string[] = [];
  const auth = new LiveAuthenticator(stubAuth(closed, 'first'));
  const limits = { ...DEFAULT_LIMITS };
  const reloader = new ConfigReloader(base.source, base, {
    gateway,
    auth,
    limits,
    plugins,
    store: new MemoryStore(),
    logger: recordingLogger(lines),
    load: async () => next(),
  });
  return { reloader, gateway, plugins, lines, limits, auth, closed };
}

describe('ConfigReloader', () => {
  it('sets up a plugin whose options changed anew and applies limits in place', async () => {
    const { reloader, gateway, lines, limits } = await reloaderFor(() => ({
      ...base,
      plugins: [
        { specifier: './whoami-plugin.js', options: {} },
        { specifier: './deny-plugin.js', options: { contains: 'private' } },
      ],
      limits: { ...DEFAULT_LIMITS, sessions: 3, maxResultBytes: 1024, maxPagesPerList: 7 },
      logLevel: 'debug',
    }));
    const reason = async (uri: string) => {
      const outcome = await gateway.handle(read(uri));
      return outcome.ok ? 'ok' : outcome.error.reason;
    };
    expect(await reason('x+test://secret')).toBe('forbidden');
    expect(await reason('x+test://private')).not.toBe('forbidden');
    const record = await reloader.reload('test');
    expect(record).toMatchObject({ outcome: 'applied', added: [], removed: [], changed: [] });
    expect(lines).toContain('warn these settings need a restart to take effect');
    expect(lines).toContain('info reload applied: limits plugins logLevel(restart needed)');
    expect(await reason('x+test://private')).toBe('forbidden');
    expect(await reason('x+test://secret')).not.toBe('forbidden');
    expect(await reason('whoami://me')).toBe('ok');
    expect(reloader.config.plugins[1]?.options).toEqual({ contains: 'private' });
    // In place: the listeners and the gateway (what upstreams may send) read this very object.
    expect(limits).toMatchObject({ sessions: 3, maxResultBytes: 1024, maxPagesPerList: 7 });
  });

  it('refuses a plugin that fails to set up, keeping the running plugins and everything else', async () => {
    const { reloader, gateway, lines, limits } = await reloaderFor(() => ({
      ...base,
      plugins: [...base.plugins, { specifier: './no-such-plugin.js', options: {} }],
      limits: { ...DEFAULT_LIMITS, sessions: 3 },
    }));
    const record = await reloader.reload('test');
    expect(record).toMatchObject({ outcome: 'refused', error: expect.stringContaining('no-such-plugin.js') });
    expect(lines[0]).toMatch(/^error reload refused; the running config stays: Cannot load plugin/);
    expect(reloader.config).toBe(base);
    expect(limits.sessions).toBe(DEFAULT_LIMITS.sessions);
    expect((await gateway.handle(read('x+test://secret'))).ok).toBe(false);
  });

  it('refuses an invalid file with the start-up message and keeps the running config', async () => {
    const { reloader, lines } = await reloaderFor(() => {
      throw new ConfigError(base.source, [{ path: '$.mcpServers.docs.url', message: 'expected string' }]);
    });
    const record = await reloader.reload('SIGHUP');
    expect(record).toMatchObject({ outcome: 'refused' });
    expect(record.error).toBe(
      'Invalid config /etc/switchyard.json:\n  - $.mcpServers.docs.url: expected string',
    );
    expect(lines[0]).toMatch(/^error reload refused; the running config stays: Invalid config/);
    expect(reloader.config).toBe(base);
    expect(reloader.history).toEqual([record]);
  });

  it('warns of a restart only while what the file says differs from what runs', async () => {
    // Found from outside: a listener path changed and then put back warned "restart needed" twice.
    const moved = { ...base, listen: { stdio: false, ws: { host: '127.0.0.1', port: 0, path: '/other' } } };
    let next = moved as GatewayConfig;
    const { reloader, lines } = await reloaderFor(() => next);
    await reloader.reload('test');
    expect(lines.filter((l) => l.includes('need a restart'))).toHaveLength(1);
    expect(reloader.config.listen).toEqual(base.listen);
    next = base;
    await reloader.reload('test');
    expect(lines.filter((l) => l.includes('need a restart'))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/reload applied: no changes/);
  });

  it('does nothing once closed', async () => {
    const { reloader, limits } = await reloaderFor(() => ({
      ...base,
      limits: { ...DEFAULT_LIMITS, sessions: 3 },
    }));
    reloader.close();
    expect(await reloader.reload('test')).toMatchObject({ outcome: 'refused' });
    expect(limits.sessions).toBe(DEFAULT_LIMITS.sessions);
  });
});

describe('loadPlugins on a reload', () => {
  it('keeps the running instance of every entry whose specifier and options are unchanged', async () => {
    const running: LoadedPlugin[] = await loadPlugins(base, silentLogger, new MemoryStore());
    const next: GatewayConfig = {
      ...base,
      plugins: [
        { specifier: './whoami-plugin.js', options: {} },
        { specifier: './deny-plugin.js', options: { contains: 'private' } },
      ],
    };
    const reloaded = await loadPlugins(next, silentLogger, new MemoryStore(), {
      config: base,
      plugins: running,
    });
    expect(reloaded[0]).toBe(running[0]);
    expect(reloaded[1]).not.toBe(running[1]);
    // A fresh copy of the same entries keeps every instance.
    const same = await loadPlugins(structuredClone(base), silentLogger, new MemoryStore(), {
      config: base,
      plugins: running,
    });
    expect(same).toEqual(running);
    expect(same[1]).toBe(running[1]);
  });
});

describe('the reload summary', () => {
  it('lists servers, then the sections that changed, ignoring key order', () => {
    const next = { ...base, clients: { a: { token: 't'.repeat(16) } }, limits: { ...DEFAULT_LIMITS } };
    const diff = diffConfig(base, next);
    expect(describeReload({ added: ['docs'], removed: ['old'], changed: ['gh'] }, diff)).toBe(
      '+docs -old ~gh clients',
    );
    expect(describeReload({ added: [], removed: [], changed: [] }, diffConfig(base, { ...base }))).toBe(
      'no changes',
    );
  });
});
