import { describe, expect, it } from 'vitest';
import { definitionDigest } from '../src/digest.js';
import { emptyLock, withPin } from '../src/lock-file.js';
import { PinState } from '../src/state.js';

const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
});

describe('PinState', () => {
  it('judges listed definitions against the pins: pinned, changed (with the fields when known), new', () => {
    const lock = withPin(emptyLock(), 'docs', 'tools', 'a', definitionDigest('tools', tool('a')));
    const state = new PinState(lock);
    expect(state.firstUse).toBe(false);
    expect(state.see('docs', 'tools', tool('a'))).toMatchObject({
      verdict: 'pinned',
      fresh: true,
      pinnedNow: false,
    });
    expect(state.see('docs', 'tools', tool('a'))).toMatchObject({ verdict: 'pinned', fresh: false });
    expect(state.see('docs', 'tools', tool('a', 'now evil'))).toMatchObject({
      verdict: 'changed',
      changed: ['description'],
      fresh: true,
    });
    expect(state.see('docs', 'tools', tool('b'))).toMatchObject({ verdict: 'new', changed: [] });
    expect(state.verdict('docs', 'tools', 'a')).toBe('changed');
    expect(state.verdict('docs', 'tools', 'b')).toBe('new');
    expect(state.quarantined()).toMatchObject([
      { server: 'docs', kind: 'tools', name: 'a', verdict: 'changed', changed: ['description'] },
      { server: 'docs', kind: 'tools', name: 'b', verdict: 'new', changed: [] },
    ]);
  });

  it('says changed without fields when the pinned definition was never seen here', () => {
    const lock = withPin(emptyLock(), 'docs', 'tools', 'a', definitionDigest('tools', tool('a', 'old')));
    const state = new PinState(lock);
    expect(state.see('docs', 'tools', tool('a'))).toMatchObject({ verdict: 'changed', changed: [] });
  });

  it('lets a pinned but not yet listed name through (unseen), not an unpinned one', () => {
    const lock = withPin(emptyLock(), 'docs', 'prompts', 'p', definitionDigest('prompts', { name: 'p' }));
    const state = new PinState(lock);
    expect(state.verdict('docs', 'prompts', 'p')).toBe('unseen');
    expect(state.verdict('docs', 'prompts', 'q')).toBe('new');
    expect(state.verdict('docs', 'tools', 'p')).toBe('new');
  });

  it('approves the last listed definition; an unlisted name cannot be approved', () => {
    const state = new PinState(emptyLock());
    state.see('docs', 'tools', tool('a'));
    expect(state.approve('docs', 'tools', 'zz')).toBeUndefined();
    const lock = state.approve('docs', 'tools', 'a');
    expect(lock?.servers.docs?.tools.a).toBe(definitionDigest('tools', tool('a')));
    expect(state.verdict('docs', 'tools', 'a')).toBe('pinned');
    expect(state.quarantined()).toEqual([]);
  });

  it('approves with a digest only while the last listed definition is that one', () => {
    const state = new PinState(emptyLock());
    state.see('docs', 'tools', tool('a', 'shown'));
    const shown = definitionDigest('tools', tool('a', 'shown'));
    expect(state.listed('docs', 'tools', 'a')).toBe(shown);
    state.see('docs', 'tools', tool('a', 'swapped'));
    expect(state.approve('docs', 'tools', 'a', shown)).toBeUndefined();
    expect(state.verdict('docs', 'tools', 'a')).toBe('new');
    state.see('docs', 'tools', tool('a', 'shown'));
    expect(state.approve('docs', 'tools', 'a', shown)?.servers.docs?.tools.a).toBe(shown);
  });

  it('trusts on first use: without a lock file, pins a first listing until its last page, then judges', () => {
    const state = new PinState(undefined);
    expect(state.firstUse).toBe(true);
    expect(state.see('docs', 'tools', tool('a'))).toMatchObject({ verdict: 'pinned', pinnedNow: true });
    expect(state.see('docs', 'tools', tool('a'))).toMatchObject({ verdict: 'pinned', pinnedNow: false });
    state.closeFirstUse('docs', 'tools');
    expect(state.see('docs', 'tools', tool('b'))).toMatchObject({ verdict: 'new', pinnedNow: false });
    expect(state.see('docs', 'tools', tool('a', 'x'))).toMatchObject({
      verdict: 'changed',
      changed: ['description'],
    });
    // Another server's first listing is still trusted.
    expect(state.see('wiki', 'tools', tool('a'))).toMatchObject({ verdict: 'pinned', pinnedNow: true });
    expect(Object.keys(state.lock.servers)).toEqual(['docs', 'wiki']);
  });

  it('judges again when the lock file is replaced', () => {
    const state = new PinState(emptyLock());
    state.see('docs', 'tools', tool('a'));
    expect(state.verdict('docs', 'tools', 'a')).toBe('new');
    state.replaceLock(withPin(emptyLock(), 'docs', 'tools', 'a', definitionDigest('tools', tool('a'))));
    expect(state.verdict('docs', 'tools', 'a')).toBe('pinned');
  });

  it('ignores an item without a string name', () => {
    expect(new PinState(undefined).see('docs', 'tools', { description: 'x' })).toBeUndefined();
  });

  it('judges tools an upstream names like Object.prototype members by their own pins only', () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];
    // Without a lock file (trust on first use), each is pinned as first seen.
    const first = new PinState(undefined);
    for (const name of names) {
      expect(first.see('docs', 'tools', tool(name)), name).toMatchObject({
        verdict: 'pinned',
        pinnedNow: true,
      });
    }
    // With one that lacks them, each is new (not "changed" from a digest Object.prototype seems to hold).
    const lock = withPin(emptyLock(), 'docs', 'tools', 'a', definitionDigest('tools', tool('a')));
    const state = new PinState(lock);
    for (const name of names) {
      expect(state.verdict('docs', 'tools', name), name).toBe('new');
      expect(state.see('docs', 'tools', tool(name)), name).toMatchObject({ verdict: 'new', changed: [] });
      expect(state.approve('docs', 'tools', name), name).toBeDefined();
      expect(state.verdict('docs', 'tools', name), name).toBe('pinned');
    }
    expect(state.verdict('constructor', 'tools', 'a')).toBe('new');
  });
});
