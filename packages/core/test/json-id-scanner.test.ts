import { describe, expect, it } from 'vitest';
import { JsonIdScanner } from '../src/transports/upstream/json-id-scanner.js';

/** The id found when `text` is fed in chunks cut at `cuts` (byte offsets). */
function scan(text: string | Buffer, cuts: number[] = []): string | number | undefined {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const scanner = new JsonIdScanner();
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    scanner.feed(bytes.subarray(start, cut));
    start = cut;
  }
  return scanner.id;
}

/** The id, checked to be the same whole, byte by byte, and cut in two at every offset. */
function scanEverySplit(text: string): string | number | undefined {
  const bytes = Buffer.from(text);
  const whole = scan(bytes);
  const scanner = new JsonIdScanner();
  for (const b of bytes) scanner.feed(Uint8Array.of(b));
  expect(scanner.id, 'byte by byte').toEqual(whole);
  for (let cut = 0; cut <= bytes.length; cut++) expect(scan(bytes, [cut]), `cut at ${cut}`).toEqual(whole);
  return whole;
}

describe('JsonIdScanner', () => {
  it('tells an answer from the upstream’s own request by a top-level "method", wherever it is', () => {
    const kinds = (text: string) => {
      const scanner = new JsonIdScanner();
      for (const b of Buffer.from(text)) scanner.feed(Uint8Array.of(b));
      const whole = new JsonIdScanner();
      whole.feed(Buffer.from(text));
      expect([whole.id, whole.hasMethod]).toEqual([scanner.id, scanner.hasMethod]);
      return [whole.id, whole.hasMethod];
    };
    expect(kinds('{"jsonrpc":"2.0","id":3,"result":{"method":"x"}}')).toEqual([3, false]);
    expect(kinds('{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}')).toEqual([
      3,
      true,
    ]);
    expect(kinds('{"params":{"text":"\\\\"},"method":"elicitation/create","id":"e1"}')).toEqual(['e1', true]);
    expect(kinds('{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":5}}')).toEqual([
      undefined,
      true,
    ]);
    // The first id counts (a later duplicate key is no reason to answer another request).
    expect(kinds('{"id":1,"result":{},"id":2}')).toEqual([1, false]);
  });

  it('finds a number or string id written first or last', () => {
    expect(scanEverySplit('{"jsonrpc":"2.0","id":7,"result":{}}')).toBe(7);
    expect(scanEverySplit('{"result":{"content":[]},"jsonrpc":"2.0","id":1234}')).toBe(1234);
    expect(scanEverySplit('{"id":"req-1","result":{}}')).toBe('req-1');
    expect(scanEverySplit('{"result":{},"id":"abc"}')).toBe('abc');
  });

  it('reads number forms and tolerates whitespace around the colon', () => {
    expect(scanEverySplit('{"id":0}')).toBe(0);
    expect(scanEverySplit('{"id":-12}')).toBe(-12);
    expect(scanEverySplit('{"id":1e3}')).toBe(1000);
    expect(scanEverySplit('{"id":2.5E+1}')).toBe(25);
    expect(scanEverySplit('{ "result" : {} ,\n\t"id" \t:  42 }')).toBe(42);
    expect(scanEverySplit('{"id":"  spaced  "}')).toBe('  spaced  ');
  });

  it('ignores "id" inside nested objects, arrays and strings', () => {
    const text =
      '{"result":{"id":99,"items":[{"id":98},"id",["id",97]],"text":"\\"id\\":96,{\\"id\\":95}"},' +
      '"method":"id","note":"{\\"id\\":94}","id":3}';
    expect(scanEverySplit(text)).toBe(3);
    expect(scanEverySplit('{"params":{"id":1},"list":[{"id":2}],"s":"\\"id\\":3"}')).toBeUndefined();
  });

  it('does not take a string value "id" for a key', () => {
    expect(scanEverySplit('{"method":"id","x":5}')).toBeUndefined();
    expect(scanEverySplit('{"a":"id","b":{"c":"id"},"id":"yes"}')).toBe('yes');
  });

  it('decodes escapes in the id and in keys', () => {
    expect(scanEverySplit('{"id":"a\\"b\\\\c\\/d\\n"}')).toBe('a"b\\c/d\n');
    expect(scanEverySplit('{"id":"\\u00e9\\ud83d\\ude00"}')).toBe('é😀');
    expect(scanEverySplit('{"\\u0069d":"escaped-key"}')).toBe('escaped-key');
    expect(scanEverySplit('{"id\\u0000":1,"id":2}')).toBe(2);
    // A backslash at the end of the id must not swallow the closing quote.
    expect(scanEverySplit('{"id":"tail\\\\","x":1}')).toBe('tail\\');
  });

  it('decodes a multi-byte UTF-8 id cut anywhere (inside a character too)', () => {
    expect(scanEverySplit('{"result":{},"id":"é✓😀"}')).toBe('é✓😀');
  });

  it('reports no id when there is none or it is not a string or number', () => {
    expect(scanEverySplit('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}')).toBeUndefined();
    expect(
      scanEverySplit('{"id":null,"error":{"code":-32700,"message":"Parse error","data":{"id":5}}}'),
    ).toBe(undefined);
    expect(scanEverySplit('{"id":true,"x":{"y":1}}')).toBeUndefined();
    expect(scanEverySplit('{"id":{"n":1},"x":2}')).toBeUndefined();
    expect(scanEverySplit('{"id":[1],"x":2}')).toBeUndefined();
    expect(scan('')).toBeUndefined();
    expect(scan('not json at all')).toBeUndefined();
  });

  it('keeps ids up to 256 characters and reports longer ones as no id', () => {
    const ok = 'x'.repeat(256);
    expect(scan(`{"result":{},"id":"${ok}"}`)).toBe(ok);
    expect(scan(`{"result":{},"id":"${ok}y"}`)).toBeUndefined();
    expect(scan(`{"id":"${'z'.repeat(100_000)}","result":{}}`)).toBeUndefined();
    const digits = '9'.repeat(300);
    expect(scan(`{"id":${digits},"result":{}}`)).toBeUndefined();
  });

  it('finds the id after long strings, long keys and deep nesting', () => {
    const long = 'v'.repeat(50_000);
    const deep = `${'['.repeat(500)}${']'.repeat(500)}`;
    const text = `{"result":{"text":"${long}","${'k'.repeat(1000)}":${deep}},"${'k'.repeat(300)}":1,"id":8}`;
    expect(scan(text)).toBe(8);
    expect(scan(text, [10, 25_000, 50_010, 51_000])).toBe(8);
  });

  it('keeps the first id and reads nothing after it', () => {
    const scanner = new JsonIdScanner();
    scanner.feed(Buffer.from('{"id":1,'));
    expect(scanner.id).toBe(1);
    scanner.feed(Buffer.from('"id":2}'));
    expect(scanner.id).toBe(1);
  });

  it('reads only the given range of a chunk', () => {
    const chunk = Buffer.from('"id":666{"id":5}"id":777');
    const scanner = new JsonIdScanner();
    scanner.feed(chunk, 8, 16);
    expect(scanner.id).toBe(5);
    const partial = new JsonIdScanner();
    partial.feed(Buffer.from('xx{"id":4yy'), 2, 9);
    partial.feed(Buffer.from('2}'));
    expect(partial.id).toBe(42);
  });

  // Regression: a key that failed to decode (a raw control character) left the previous key ("id") current,
  // so the next value was read as the id.
  it('does not read the value of an undecodable key as the id', () => {
    expect(scan('{"id":null,"a\tb":5}')).toBeUndefined();
  });
});
