import { describe, expect, it } from 'vitest';
import { heldSubscriptions } from '../src/routing/held-subscriptions.js';
import { SubscriptionTable } from '../src/subscriptions.js';

describe('heldSubscriptions', () => {
  const held = [
    { upstream: 'hb', uri: 'test://hb/r/3' },
    { upstream: 'docs', uri: 'hb+test://hb/r/3' },
    { upstream: 'files', uri: 'file:///a' },
    { upstream: 'mirror', uri: 'file:///a' },
  ];

  it('prefers where the URI leads now, when the session holds that', () => {
    const routed = { upstream: 'docs', uri: 'hb+test://hb/r/3' };
    expect(heldSubscriptions('hb+test://hb/r/3', routed, held)).toEqual([routed]);
  });

  it('finds a removed server by its prefix before an unprefixed URI spelled the same', () => {
    expect(heldSubscriptions('hb+test://hb/r/3', undefined, held)).toEqual([held[0]]);
    // Routed elsewhere now (the session holds nothing there): still the one it subscribed to.
    expect(heldSubscriptions('hb+test://hb/r/3', { upstream: 'x', uri: 'test://hb/r/3' }, held)).toEqual([
      held[0],
    ]);
  });

  it('releases every unprefixed holder of a URI exposed unchanged, and nothing for a URI not held', () => {
    expect(heldSubscriptions('file:///a', undefined, held)).toEqual([held[2], held[3]]);
    expect(heldSubscriptions('hb+test://hb/r/9', undefined, held)).toEqual([]);
    expect(heldSubscriptions('file:///b', { upstream: 'files', uri: 'file:///b' }, held)).toEqual([]);
  });
});

describe('SubscriptionTable.held', () => {
  it('lists what a subscriber holds, whichever upstream, and forgets what it released', async () => {
    const table = new SubscriptionTable({ subscribe: async () => {}, unsubscribe: async () => {} });
    await table.subscribe('s1', 'hb', 'test://hb/r/3');
    await table.subscribe('s1', 'docs', 'x://y\u0000z');
    await table.subscribe('s2', 'hb', 'test://hb/r/4');
    expect(table.held('s1')).toEqual([
      { upstream: 'hb', uri: 'test://hb/r/3' },
      { upstream: 'docs', uri: 'x://y\u0000z' },
    ]);
    await table.unsubscribe('s1', 'hb', 'test://hb/r/3');
    expect(table.held('s1')).toEqual([{ upstream: 'docs', uri: 'x://y\u0000z' }]);
    expect(table.held('nobody')).toEqual([]);
  });
});
