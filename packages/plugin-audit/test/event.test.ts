import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, type PluginSetupContext, setupPlugins, silentLogger } from '@switchyard/core';
import { Cleanup } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildEventRecord, MAX_DETAIL_BYTES } from '../src/event.js';
import audit from '../src/index.js';
import { tempDir } from './support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** The audit plugin first, then a plugin that only emits events. */
async function withEmitter(options: Record<string, unknown>) {
  const dir = tempDir(cleanup);
  const file = join(dir, 'audit.jsonl');
  let events: PluginSetupContext['events'] | undefined;
  const emitter = definePlugin({
    name: 'acme-governance',
    setup: (_options, ctx) => {
      events = ctx.events;
      return {};
    },
  });
  const plugins = await setupPlugins(
    [
      { plugin: audit, options: { file, ...options }, source: '@switchyard/plugin-audit' },
      { plugin: emitter, options: {}, source: './acme.js' },
    ],
    silentLogger,
    { baseDir: dir },
  );
  cleanup.add(() => plugins[0]!.hooks.close?.());
  const lines = () =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { emit: events!.emit, lines };
}

describe('event lines', () => {
  it('writes one line per event another plugin emits: time, event, plugin, identity, detail', async () => {
    const { emit, lines } = await withEmitter({ fsync: 'always' });
    await emit({ type: 'pin.approved', identity: 'alice', detail: { name: 'docs__search', kind: 'tool' } });
    await emit({ type: 'pin.quarantined', detail: { name: 'docs__new' } });
    const [approved, quarantined] = lines();
    expect(approved).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      event: 'pin.approved',
      plugin: 'acme-governance',
      identity: 'alice',
      detail: { name: 'docs__search', kind: 'tool' },
    });
    expect(Object.keys(approved!)).toEqual(['time', 'event', 'plugin', 'identity', 'detail']);
    expect(quarantined).not.toHaveProperty('identity');
    expect(quarantined).toMatchObject({ event: 'pin.quarantined', detail: { name: 'docs__new' } });
  });

  it('applies the redactions: identity, and paths into detail', async () => {
    const { emit, lines } = await withEmitter({ redact: ['identity', 'detail.name'] });
    await emit({ type: 'pin.approved', identity: 'alice', detail: { name: 'docs__search', kind: 'tool' } });
    expect(lines()[0]).toMatchObject({
      identity: '[REDACTED]',
      detail: { name: '[REDACTED]', kind: 'tool' },
    });
  });

  it('records an oversized detail as a short note', () => {
    const record = buildEventRecord({
      type: 'x.y',
      time: '2026-01-01T00:00:00.000Z',
      plugin: 'p',
      detail: { blob: 'x'.repeat(MAX_DETAIL_BYTES) },
    });
    expect(record.detail).toMatch(/^\[OMITTED: \d+ bytes, over 16384\]$/);
  });
});
