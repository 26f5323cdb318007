import { describe, expect, it } from 'vitest';
import { asRecords } from '../src/payload.js';

describe('asRecords', () => {
  // Regression: `null` went through as a record, and whoever read a field of it threw (-32603 for a whole list).
  it('keeps the objects of an array and leaves out every element that is no object', () => {
    const a = { name: 'a' };
    const b = { name: 'b', nested: { x: 1 } };
    expect(asRecords([null, a, 'str', 5, true, undefined, [1], [], b, Number.NaN])).toEqual([a, b]);
    expect(asRecords([a, b])[1]).toBe(b);
  });

  it('is empty for anything that is not an array', () => {
    for (const value of [undefined, null, 'tools', 3, { 0: { name: 'a' }, length: 1 }]) {
      expect(asRecords(value)).toEqual([]);
    }
  });
});
