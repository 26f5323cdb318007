import { Gateway, type Logger, silentLogger } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { Authenticator, AuthOutcome } from '../src/auth/authenticator.js';
import { LiveAuthenticator } from '../src/auth/live-authenticator.js';
import { ConfigError, type GatewayConfig } from '../src/config/load.js';
import { DEFAULT_LIMITS } from '../src/listeners/limits.js';
import { ConfigReloader } from '../src/reload/apply.js';
import { describeReload, diffConfig } from '../src/reload/diff.js';

// The reload logic without a process: what a reload keeps, warns about and records.

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

const base: GatewayConfig = {
  source: '/etc/switchyard.json',
  baseDir: '/etc',
  listen: { stdio: false },
  upstreams: [],
  plugins: [{ specifier: '@switchyard/plugin-audit', options: { file: 'a.jsonl' } }],
  limits: { ...DEFAULT_LIMITS },
};

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
  const gateway = new Gateway({ upstreams: [], logger: silentLogger });
  closing.push(() => gateway.close());
  await gateway.start();
  const closed: string[] = [];
  const auth = new LiveAuthenticator(stubAuth(closed, 'first'));
  const limits = { ...DEFAULT_LIMITS };
  const reloader = new ConfigReloader(base.source, base, {
    gateway,
    auth,
    limits,
    logger: recordingLogger(lines),
    load: async () => next(),
  });
  return { reloader, lines, limits, auth, closed };
}

describe('ConfigReloader', () => {
  it('keeps the running plugins and says a restart is needed; applies limits in place', async () => {
    const { reloader, lines, limits } = await reloaderFor(() => ({
      ...base,
      plugins: [{ specifier: '@switchyard/plugin-audit', options: { file: 'b.jsonl' } }],
      limits: { ...DEFAULT_LIMITS, sessions: 3 },
      logLevel: 'debug',
    }));
    const record = await reloader.reload('test');
    expect(record).toMatchObject({ outcome: 'applied', added: [], removed: [], changed: [] });
    expect(lines).toContain('warn plugin changes need a restart; the running plugins stay as they are');
    expect(lines).toContain('warn these settings need a restart to take effect');
    expect(lines).toContain('info reload applied: limits plugins(restart needed) logLevel(restart needed)');
    expect(reloader.config.plugins).toEqual(base.plugins);
    expect(limits.sessions).toBe(3);
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
