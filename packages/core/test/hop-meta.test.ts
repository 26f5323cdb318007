import { describe, expect, it } from 'vitest';
import { withoutHopMeta } from '../src/notify/hop-meta.js';

describe('withoutHopMeta', () => {
  it("drops the upstream listen stream's id, keeping everything else", () => {
    const id = 'io.modelcontextprotocol/subscriptionId';
    expect(withoutHopMeta({ uri: 'u', _meta: { [id]: 'listen:1' } })).toEqual({ uri: 'u' });
    expect(withoutHopMeta({ uri: 'u', _meta: { [id]: 'listen:1', own: 1 } })).toEqual({
      uri: 'u',
      _meta: { own: 1 },
    });
    const untouched = { uri: 'u', _meta: { own: 1 } };
    expect(withoutHopMeta(untouched)).toBe(untouched);
    expect(withoutHopMeta({ uri: 'u', _meta: null })).toEqual({ uri: 'u', _meta: null });
  });
});
