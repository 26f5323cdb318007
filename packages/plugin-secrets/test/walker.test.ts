import { describe, expect, it } from 'vitest';
import { Joined } from '../src/joined.js';
import { redactText } from '../src/redactor.js';
import { collect, replace } from '../src/walker.js';

const limits = { maxDepth: 4, maxChars: 100 };

describe('collect and replace', () => {
  it('visit every string, keys included, each key before its value, and skip only contents blobs', () => {
    const value = {
      a: 'x',
      contents: [{ uri: 'u', blob: 'AAAA' }],
      content: [{ type: 'resource', resource: { uri: 'v', blob: 'BBBB' } }],
      d: { uri: 'w', blob: 'CCCC' },
    };
    const skipped = collect(value, undefined, 'skip');
    expect(skipped.ok && skipped.strings.texts).toEqual([
      ...['a', 'x', 'contents', 'uri', 'u', 'blob'],
      ...['content', 'type', 'resource', 'resource', 'uri', 'v', 'blob'],
      // Found from outside: a `{uri, blob}` anywhere (here where no contents go) was skipped too.
      ...['d', 'uri', 'w', 'blob', 'CCCC'],
    ]);
    // Contents whose blob is no base64 are scanned too.
    const notBase64 = collect({ contents: [{ uri: 'u', blob: 'sc ghp_x' }] }, undefined, 'skip');
    expect(notBase64.ok && notBase64.strings.texts).toContain('sc ghp_x');
    // What a client sends is scanned whole: a `blob` there is a string like any other.
    const scanned = collect(value);
    expect(scanned.ok && scanned.strings.texts).toContain('AAAA');
  });

  it('replace the n-th string, copying only what leads to it', () => {
    const value = { a: 'x', b: [1, 'y'], c: { d: 'z' }, blob: 'AAAA' };
    const out = replace(
      value,
      new Map([
        [3, 'Y'],
        [2, 'B'],
      ]),
    );
    expect(out).toEqual({ a: 'x', B: [1, 'Y'], c: { d: 'z' }, blob: 'AAAA' });
    expect(out.c).toBe(value.c);
    expect(value).toEqual({ a: 'x', b: [1, 'y'], c: { d: 'z' }, blob: 'AAAA' });
    expect(replace(value, new Map())).toBe(value);
  });

  it('keep a __proto__ key a key', () => {
    const value = JSON.parse('{"__proto__": {"x": "secret"}}') as Record<string, unknown>;
    const out = replace(value, new Map([[1, 'y']])) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
  });

  it('refuse what is nested too deep or too large, and never overflow the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(collect(deep, limits)).toEqual({ ok: false, limit: 'depth' });
    expect(collect(deep)).toEqual({ ok: false, limit: 'depth' });
    expect(collect({ a: [[['ok']]] }, limits).ok).toBe(true);
    expect(collect({ a: 'x'.repeat(200) }, limits)).toEqual({ ok: false, limit: 'size' });
    expect(
      collect(
        Array.from({ length: 200 }, () => 0),
        limits,
      ),
    ).toEqual({ ok: false, limit: 'size' });
  });
});

describe('Joined', () => {
  it('maps a finding back to the strings it falls in, clipped to each', () => {
    const joined = new Joined({ texts: ['key', 'value', 'next'], separators: [': ', '\n', '\n'] });
    expect(joined.text).toBe('key: value\nnext\n');
    const parts = joined.split([{ rule: 'r', start: 1, end: 8 }]);
    expect(parts).toEqual(
      new Map([
        [0, [{ rule: 'r', start: 1, end: 3 }]],
        [1, [{ rule: 'r', start: 0, end: 3 }]],
      ]),
    );
    expect(joined.split([{ rule: 'r', start: 3, end: 5 }])).toEqual(new Map());
    expect(joined.split([{ rule: 'r', start: 11, end: 15 }])).toEqual(
      new Map([[2, [{ rule: 'r', start: 0, end: 4 }]]]),
    );
  });
});

describe('redactText', () => {
  it('replaces each range by its marker, merging overlaps', () => {
    expect(redactText('a SECRET b', [{ rule: 'x', start: 2, end: 8 }])).toBe('a [REDACTED:x] b');
    expect(
      redactText('0123456789', [
        { rule: 'b', start: 4, end: 8 },
        { rule: 'a', start: 1, end: 5 },
        { rule: 'c', start: 9, end: 10 },
      ]),
    ).toBe('0[REDACTED:a]8[REDACTED:c]');
    expect(redactText('abc', [])).toBe('abc');
  });
});
