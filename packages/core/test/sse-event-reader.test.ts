import { describe, expect, it } from 'vitest';
import { SseEventReader } from '../src/transports/upstream/sse-event-reader.js';

type Seen = ['event', string, string] | ['oversized', string | number | undefined, number, boolean];

function reader(maxBytes = 1024) {
  const seen: Seen[] = [];
  const r = new SseEventReader(
    {
      event: (type, data) => seen.push(['event', type, data]),
      oversized: (id, bytes, hasMethod) => seen.push(['oversized', id, bytes, hasMethod]),
    },
    () => maxBytes,
  );
  return { r, seen };
}

/** Feeds `text` whole, then byte by byte: the events must not depend on where chunks split. */
function both(text: string, maxBytes?: number): Seen[] {
  const whole = reader(maxBytes);
  whole.r.push(Buffer.from(text));
  const split = reader(maxBytes);
  for (const byte of Buffer.from(text)) split.r.push(Buffer.from([byte]));
  expect(split.seen).toEqual(whole.seen);
  return whole.seen;
}

describe('SseEventReader', () => {
  it('reads events as the event-stream format has them, however the stream is chunked', () => {
    const stream = [
      'event: endpoint\ndata: /messages?sessionId=1\n\n',
      ': a comment\r\nid: 7\r\nretry: 10\r\ndata:{"a":1}\r\n\r\n', // CRLF, no space after the colon
      'data: line one\rdata:  two\r\r', // CR; only one space is dropped
      'event\ndata\ndata: x\n\n', // fields without a colon: an empty type (message) and an empty data line
      'event: message\n\n', // no data: no event
      'unknown: field\ndata: é\n\n',
    ].join('');
    expect(both(stream)).toEqual([
      ['event', 'endpoint', '/messages?sessionId=1'],
      ['event', 'message', '{"a":1}'],
      ['event', 'message', 'line one\n two'],
      ['event', 'message', '\nx'],
      ['event', 'message', 'é'],
    ]);
  });

  it('discards an event over the limit as it arrives, names its id and reads on', () => {
    const big = `{"result":{"text":"${'x'.repeat(300)}"},"jsonrpc":"2.0","id":42}`;
    const request = `{"jsonrpc":"2.0","id":"q","method":"sampling/createMessage","params":"${'y'.repeat(300)}"}`;
    // Each line under the limit, the event over it.
    const z = 'z'.repeat(120);
    const spread = `data: {"jsonrpc":"2.0","id":9,\ndata: "a":"${z}",\ndata: "b":"${z}"}\n\n`;
    const seen = both(`data: ${big}\n\ndata: ${request}\n\n${spread}data: {"id":1}\n\n`, 200);
    expect(seen).toEqual([
      ['oversized', 42, big.length, false],
      ['oversized', 'q', request.length, true],
      ['oversized', 9, expect.any(Number), false],
      ['event', 'message', '{"id":1}'],
    ]);
  });

  it('keeps no more than the limit of an endless data line (and none of an endless other field)', () => {
    const { r, seen } = reader(1024 * 1024);
    const mib = Buffer.alloc(1024 * 1024, 'y');
    r.push(Buffer.from('data: '));
    for (let i = 0; i < 16; i++) r.push(mib);
    r.push(Buffer.from('\n\n'));
    expect(seen).toEqual([['oversized', undefined, 16 * 1024 * 1024, false]]);
    r.push(Buffer.from(`noise: ${'n'.repeat(4 * 1024 * 1024)}\ndata: {"id":2}\n\n`));
    expect(seen.at(-1)).toEqual(['event', 'message', '{"id":2}']);
  });
});

describe('SseEventReader at the start of a stream', () => {
  it('skips one byte order mark opening the stream, however it is chunked (found from outside: the endpoint was lost)', () => {
    const stream = '\uFEFFevent: endpoint\ndata: /messages\n\n';
    expect(both(stream)).toEqual([['event', 'endpoint', '/messages']]);
    // Only the first: a second one is part of the field name, as the format says.
    expect(both('\uFEFF\uFEFFevent: endpoint\ndata: x\n\n')).toEqual([['event', 'message', 'x']]);
  });
});
