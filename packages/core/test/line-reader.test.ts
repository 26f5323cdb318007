import { describe, expect, it } from 'vitest';
import { LineReader } from '../src/transports/upstream/line-reader.js';

type Event = { line: string } | { oversized: string | number | undefined; bytes: number };

function reader(maxBytes: number | (() => number) = 1024) {
  const events: Event[] = [];
  const limit = typeof maxBytes === 'number' ? () => maxBytes : maxBytes;
  const lines = new LineReader(
    {
      line: (text) => events.push({ line: text }),
      oversized: (id, bytes) => events.push({ oversized: id, bytes }),
    },
    limit,
  );
  return { lines, events };
}

/** What the reader reports for `text` pushed in chunks cut at `cuts`. */
function read(text: string, cuts: number[], maxBytes = 1024): Event[] {
  const bytes = Buffer.from(text);
  const { lines, events } = reader(maxBytes);
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    lines.push(bytes.subarray(start, cut));
    start = cut;
  }
  return events;
}

/** The events for `text`, checked to be the same whole, byte by byte, cut in two anywhere, and in three. */
function readEverySplit(text: string, maxBytes = 1024): Event[] {
  const whole = read(text, [], maxBytes);
  const length = Buffer.byteLength(text);
  expect(
    read(
      text,
      Array.from({ length }, (_, i) => i),
      maxBytes,
    ),
    'byte by byte',
  ).toEqual(whole);
  for (let a = 0; a <= length; a++) expect(read(text, [a], maxBytes), `cut at ${a}`).toEqual(whole);
  const step = 1 + (length >> 5);
  for (let a = 0; a <= length; a += step) {
    for (let b = a; b <= length; b += step)
      expect(read(text, [a, b], maxBytes), `cuts ${a} ${b}`).toEqual(whole);
  }
  return whole;
}

describe('LineReader', () => {
  it('splits newline-delimited lines wherever the chunks are cut', () => {
    expect(readEverySplit('{"id":1}\n{"id":2}\nplain\n')).toEqual([
      { line: '{"id":1}' },
      { line: '{"id":2}' },
      { line: 'plain' },
    ]);
  });

  it('strips one trailing \\r (also when \\r and \\n arrive apart) and keeps inner ones', () => {
    expect(readEverySplit('a\r\nb\r\r\nc\rd\n')).toEqual([{ line: 'a' }, { line: 'b\r' }, { line: 'c\rd' }]);
  });

  it('skips empty and blank lines', () => {
    expect(readEverySplit('\n\n \t\n\r\n{"a":1}\n\n')).toEqual([{ line: '{"a":1}' }]);
  });

  it('decodes UTF-8 characters cut between chunks', () => {
    expect(readEverySplit('é✓😀\n')).toEqual([{ line: 'é✓😀' }]);
  });

  it('hands on nothing before the newline, and clear() drops a partial line', () => {
    const { lines, events } = reader();
    lines.push(Buffer.from('{"id":1'));
    expect(events).toEqual([]);
    lines.clear();
    lines.push(Buffer.from('{"id":2}\n'));
    expect(events).toEqual([{ line: '{"id":2}' }]);
  });

  it('keeps a line of exactly maxBytes and discards one byte more, with its size and id', () => {
    const exact = `{"id":1,"pad":"${'x'.repeat(10)}"}`; // 27 bytes
    expect(Buffer.byteLength(exact)).toBe(27);
    expect(readEverySplit(`${exact}\n`, 27)).toEqual([{ line: exact }]);
    expect(readEverySplit(`${exact}\n`, 26)).toEqual([{ oversized: 1, bytes: 27 }]);
  });

  it('finds the id of an oversized line whether it comes before or after the limit is passed', () => {
    const pad = 'x'.repeat(100);
    const text = `{"id":"first","result":"${pad}"}\n{"result":"${pad}","id":2}\n{"result":"${pad}"}\nok\n`;
    expect(readEverySplit(text, 40)).toEqual([
      { oversized: 'first', bytes: 126 },
      { oversized: 2, bytes: 120 },
      { oversized: undefined, bytes: 113 },
      { line: 'ok' },
    ]);
  });

  it('counts a discarded line to the end however long it is, and reads on after it', () => {
    const { lines, events } = reader(1024 * 1024);
    lines.push(Buffer.from('{"jsonrpc":"2.0","result":{"text":"'));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 80; i++) lines.push(chunk); // 5 MiB
    lines.push(Buffer.from('"},"id":99}\n{"id":100,"result":{}}\n'));
    expect(events).toEqual([
      { oversized: 99, bytes: 35 + 80 * 64 * 1024 + 11 },
      { line: '{"id":100,"result":{}}' },
    ]);
  });

  it('reads the limit live: a lower one applies mid-line, a higher one to the next line', () => {
    let max = 100;
    const { lines, events } = reader(() => max);
    lines.push(Buffer.from('{"id":1,"result":"'));
    max = 10;
    lines.push(Buffer.from('abc"}\n'));
    expect(events).toEqual([{ oversized: 1, bytes: 23 }]);
    lines.push(Buffer.from(`{"id":2,"result":"${'y'.repeat(50)}"}\n`));
    expect(events[1]).toEqual({ oversized: 2, bytes: 70 });
    max = 1000;
    lines.push(Buffer.from(`{"id":3,"result":"${'y'.repeat(50)}"}\n`));
    expect(events[2]).toEqual({ line: `{"id":3,"result":"${'y'.repeat(50)}"}` });
  });

  it('clear() also ends a discard in progress', () => {
    const { lines, events } = reader(8);
    lines.push(Buffer.from('{"id":1,"result":"long'));
    lines.clear();
    lines.push(Buffer.from('{"id":2}\n'));
    expect(events).toEqual([{ line: '{"id":2}' }]);
  });
});
