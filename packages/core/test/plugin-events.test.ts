import { describe, expect, it } from 'vitest';
import type { Logger } from '../src/logger.js';
import { silentLogger } from '../src/logger.js';
import { definePlugin, type PluginSetupContext } from '../src/plugins/define.js';
import type { PluginEvent, PluginEventInput } from '../src/plugins/events.js';
import { setupPlugins } from '../src/plugins/host.js';

const entry = (plugin: unknown, options: unknown = {}) => ({ plugin, options, source: './test-plugin.js' });

/** A plugin that records the events it sees, and keeps its setup context's `events`. */
function recorder(name: string, seen: PluginEvent[], hook?: (event: PluginEvent) => unknown) {
  const holder: { events?: PluginSetupContext['events'] } = {};
  const plugin = definePlugin({
    name,
    setup: (_options, ctx) => {
      holder.events = ctx.events;
      return {
        event: (event) => {
          seen.push(event);
          return hook?.(event);
        },
      };
    },
  });
  return { plugin, emit: (e: PluginEventInput) => holder.events!.emit(e) };
}

describe('plugin events', () => {
  it('reach the other plugins in load order, with time and the emitting plugin set by the host', async () => {
    const order: string[] = [];
    const seenA: PluginEvent[] = [];
    const seenB: PluginEvent[] = [];
    const a = recorder('a', seenA, () => order.push('a'));
    const b = recorder('b', seenB, () => order.push('b'));
    const c = recorder('c', []);
    await setupPlugins([entry(a.plugin), entry(c.plugin), entry(b.plugin)], silentLogger);
    await c.emit({ type: 'pin.approved', identity: 'alice', detail: { name: 'docs__search' } });
    expect(order).toEqual(['a', 'b']);
    expect(seenA[0]).toEqual({
      type: 'pin.approved',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      plugin: 'c',
      identity: 'alice',
      detail: { name: 'docs__search' },
    });
    expect(Object.isFrozen(seenA[0])).toBe(true);
    // The emitter does not hear itself.
    await a.emit({ type: 'x.y' });
    expect(seenA).toHaveLength(1);
    expect(seenB.map((e) => [e.type, e.plugin, e.detail])).toEqual([
      ['pin.approved', 'c', { name: 'docs__search' }],
      ['x.y', 'a', {}],
    ]);
  });

  it('waits for the hooks that return a promise; a failing hook is logged and the others still run', async () => {
    const warnings: unknown[] = [];
    const log = {
      ...silentLogger,
      warn: (...args: unknown[]) => warnings.push(args),
      child: () => log,
    } as unknown as Logger;
    let written = false;
    const slow = recorder('slow', [], () =>
      new Promise((r) => setTimeout(r, 20)).then(() => (written = true)),
    );
    const thrower = recorder('thrower', [], () => {
      throw new Error('boom');
    });
    const rejecter = recorder('rejecter', [], () => Promise.reject(new Error('no disk')));
    const last: PluginEvent[] = [];
    const after = recorder('after', last);
    const emitter = recorder('emitter', []);
    await setupPlugins(
      [
        entry(slow.plugin),
        entry(thrower.plugin),
        entry(rejecter.plugin),
        entry(after.plugin),
        entry(emitter.plugin),
      ],
      log,
    );
    await expect(emitter.emit({ type: 'pin.quarantined' })).resolves.toBeUndefined();
    expect(written).toBe(true);
    expect(last).toHaveLength(1);
    expect(JSON.stringify(warnings)).toMatch(/thrower.*boom/);
    expect(JSON.stringify(warnings)).toMatch(/rejecter.*no disk/);
    await expect(emitter.emit({ type: '' })).rejects.toThrow(/without a type/);
  });

  it('from an instance a reload keeps, reach the new set of plugins', async () => {
    const oldSeen: PluginEvent[] = [];
    const newSeen: PluginEvent[] = [];
    const oldAudit = recorder('audit', oldSeen);
    const pin = recorder('pin', []);
    const first = await setupPlugins([entry(oldAudit.plugin), entry(pin.plugin)], silentLogger);
    const newAudit = recorder('audit', newSeen);
    await setupPlugins([entry(newAudit.plugin), entry(pin.plugin)], silentLogger, {
      reuse: (e) => (e.plugin === pin.plugin ? first[1] : undefined),
    });
    await pin.emit({ type: 'pin.approved' });
    expect(oldSeen).toEqual([]);
    expect(newSeen.map((e) => e.type)).toEqual(['pin.approved']);
  });
});
