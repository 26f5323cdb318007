import { describe, expect, it } from 'vitest';
import { ListingChanges } from '../src/routing/listing-changes.js';
import { changedNames, listedItems } from '../src/routing/listing-diff.js';

const tool = (name: string, description = `the ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
});

describe('changedNames', () => {
  const before = listedItems([tool('a'), tool('b'), tool('c')]);

  it('finds the names added, removed and defined differently', () => {
    const after = listedItems([tool('a'), tool('b', 'reworded'), tool('d')]);
    expect([...changedNames(before, after)].sort()).toEqual(['b', 'c', 'd']);
  });

  it('finds nothing in the same listing, whatever its order or the order of its keys', () => {
    const reordered = listedItems([
      {
        inputSchema: { properties: { q: { type: 'string' } }, type: 'object' },
        description: 'the c',
        name: 'c',
      },
      tool('b'),
      tool('a'),
    ]);
    expect(changedNames(before, reordered).size).toBe(0);
    expect(changedNames(new Map(), new Map()).size).toBe(0);
  });

  it('takes prototype names as plain names', () => {
    const odd = listedItems([tool('__proto__'), tool('constructor'), tool('toString')]);
    expect([...changedNames(new Map(), odd)].sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(
      changedNames(odd, listedItems([tool('__proto__'), tool('constructor'), tool('toString')])).size,
    ).toBe(0);
    const changed = listedItems([tool('__proto__', 'other'), tool('constructor')]);
    expect([...changedNames(odd, changed)].sort()).toEqual(['__proto__', 'toString']);
    // An item whose own key is __proto__ (as JSON.parse makes it) is compared by that key too.
    const parsed = (proto: string) => JSON.parse(`{"name":"x","__proto__":{"v":"${proto}"}}`);
    expect(changedNames(listedItems([parsed('1')]), listedItems([parsed('1')])).size).toBe(0);
    expect([...changedNames(listedItems([parsed('1')]), listedItems([parsed('2')]))]).toEqual(['x']);
  });

  it('leaves out items without a string name, and takes an item that is not JSON as changed', () => {
    expect([...listedItems([{ name: 3 }, { title: 'no name' }, tool('a')]).keys()]).toEqual(['a']);
    const odd = () => listedItems([{ name: 'n', size: Number.NaN }]);
    expect([...changedNames(odd(), odd())]).toEqual(['n']);
  });
});

describe('ListingChanges', () => {
  const listing = (...names: string[]) => listedItems(names.map((n) => tool(n)));

  it('holds what each listing changed until taken; a first listing changes nothing', () => {
    const changes = new ListingChanges();
    changes.record('gh', changes.epoch('gh'), listing('a', 'b'));
    expect(changes.take('gh').size).toBe(0);
    changes.record('gh', changes.epoch('gh'), listing('a', 'b', 'c'));
    changes.record('gh', changes.epoch('gh'), listing('b', 'c'));
    changes.record('ci', changes.epoch('ci'), listing('x'));
    expect([...changes.take('gh')].sort()).toEqual(['a', 'c']);
    expect(changes.take('gh').size).toBe(0);
    // The same listing again is no change.
    changes.record('gh', changes.epoch('gh'), listing('b', 'c'));
    expect(changes.take('gh').size).toBe(0);
  });

  it('forgets an upstream, and does not record a listing that started before', () => {
    const changes = new ListingChanges();
    changes.record('gh', changes.epoch('gh'), listing('a'));
    changes.record('gh', changes.epoch('gh'), listing('a', 'b'));
    const started = changes.epoch('gh');
    changes.forget('gh');
    expect(changes.take('gh').size).toBe(0);
    changes.record('gh', started, listing('z'));
    // Its next listing is a first again: nothing changed, and it is the one later ones compare with.
    changes.record('gh', changes.epoch('gh'), listing('a'));
    expect(changes.take('gh').size).toBe(0);
    changes.record('gh', changes.epoch('gh'), listing('a', 'c'));
    expect([...changes.take('gh')]).toEqual(['c']);
  });

  it('keeps only the upstreams a reload kept', () => {
    const changes = new ListingChanges();
    for (const u of ['gh', 'ci']) {
      changes.record(u, changes.epoch(u), listing('a'));
      changes.record(u, changes.epoch(u), listing('b'));
    }
    changes.retain(new Set(['ci']));
    expect(changes.take('gh').size).toBe(0);
    expect([...changes.take('ci')].sort()).toEqual(['a', 'b']);
  });
});
