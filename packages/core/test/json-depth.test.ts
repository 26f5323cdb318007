import { describe, expect, it } from 'vitest';
import { decodeFrame } from '../src/downstream/jsonrpc.js';
import { DEFAULT_MAX_JSON_DEPTH, jsonTextTooDeep, jsonValueTooDeep } from '../src/json-depth.js';

const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('jsonTextTooDeep', () => {
  it('counts levels of arrays and objects, the outermost being 1', () => {
    for (const nest of [arrays, objects]) {
      expect(jsonTextTooDeep(nest(3), 3)).toBe(false);
      expect(jsonTextTooDeep(nest(4), 3)).toBe(true);
      expect(jsonTextTooDeep(nest(64), 64)).toBe(false);
      expect(jsonTextTooDeep(nest(65), 64)).toBe(true);
    }
    expect(jsonTextTooDeep('[[1],[2],[[3]],{"a":[4]}]', 3)).toBe(false);
    expect(jsonTextTooDeep('1', 0)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(jsonTextTooDeep(JSON.stringify({ a: '[[[[[[{{{{{{' }), 2)).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify({ a: 'say "[[[[" \\ and \\"{{{{"' }), 2)).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify({ a: '\\', b: [[[1]]] }), 3)).toBe(true);
    expect(jsonTextTooDeep(JSON.stringify({ a: '\\"[[[[', b: [1] }), 2)).toBe(false);
  });

  it('measures text that is no JSON as far as it goes, without throwing', () => {
    expect(jsonTextTooDeep('{"a": "never closed [[[[[[[[', 2)).toBe(false);
    expect(jsonTextTooDeep(']]]]]][[[', 2)).toBe(false);
    expect(jsonTextTooDeep('[[[[[[ not json', 2)).toBe(true);
  });

  it('takes a 100,000-level message without recursing', () => {
    expect(jsonTextTooDeep(arrays(100_000), DEFAULT_MAX_JSON_DEPTH)).toBe(true);
    expect(jsonTextTooDeep(objects(100_000), DEFAULT_MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('jsonValueTooDeep', () => {
  it('agrees with the text scan on parsed values', () => {
    for (const text of [
      arrays(3),
      arrays(4),
      objects(3),
      objects(4),
      '[[1],[2],[[3]],{"a":[4]}]',
      '1',
      '"x"',
    ]) {
      for (const max of [1, 2, 3, 4]) {
        expect(jsonValueTooDeep(JSON.parse(text), max), `${text} / ${max}`).toBe(jsonTextTooDeep(text, max));
      }
    }
    expect(jsonValueTooDeep(JSON.parse(arrays(100_000)), DEFAULT_MAX_JSON_DEPTH)).toBe(true);
    // Its recursion stops one level past the limit: the largest one the config allows upstream is safe.
    expect(jsonValueTooDeep(JSON.parse(objects(100_000)), 2_000)).toBe(true);
    expect(jsonValueTooDeep(JSON.parse(objects(2_000)), 2_000)).toBe(false);
  });
});

describe('decodeFrame', () => {
  it('refuses a frame nested deeper than the limit with -32600 too_deep, before parsing it', () => {
    const frame = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"x":${arrays(100_000)}}}}`;
    expect(decodeFrame(frame)).toEqual({
      messages: [],
      errors: [
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: expect.stringContaining('deeper than 100 levels (limits.maxJsonDepth)'),
            data: { reason: 'too_deep', limit: 100 },
          },
        },
      ],
    });
    const shallow = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[[1]]}}';
    expect(decodeFrame(shallow, 4)).toEqual({ messages: [JSON.parse(shallow)], errors: [] });
    expect(decodeFrame(shallow, 3)).toMatchObject({
      messages: [],
      errors: [{ error: { data: { reason: 'too_deep', limit: 3 } } }],
    });
  });
});
