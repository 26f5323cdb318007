import { describe, expect, it } from 'vitest';
import { MAX_DROPPED_BYTES, WsMessageFilter } from '../src/transports/upstream/ws-message-filter.js';

const HEAD = Buffer.from(
  'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Protocol: mcp\r\n\r\n',
);
const TEXT = 0x1;
const BINARY = 0x2;
const CONTINUATION = 0x0;
const PING = 0x9;

/** One frame as a server writes it (unmasked): 7-, 16- or 64-bit length as the payload needs. */
function frame(
  opcode: number,
  payload: string | Buffer,
  options: { fin?: boolean; rsv1?: boolean; mask?: boolean } = {},
): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const first = ((options.fin ?? true) ? 0x80 : 0) | (options.rsv1 ? 0x40 : 0) | opcode;
  const maskBit = options.mask ? 0x80 : 0;
  let header: Buffer;
  if (data.length < 126) header = Buffer.from([first, maskBit | data.length]);
  else if (data.length < 65536) {
    header = Buffer.from([first, maskBit | 126, 0, 0]);
    header.writeUInt16BE(data.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = maskBit | 127;
    header.writeUInt32BE(Math.floor(data.length / 2 ** 32), 2);
    header.writeUInt32BE(data.length % 2 ** 32, 6);
  }
  return Buffer.concat([header, options.mask ? Buffer.alloc(4) : Buffer.alloc(0), data]);
}

type Oversized = { id: string | number | undefined; bytes: number; hasMethod: boolean; binary: boolean };

/** Feeds `bytes` in chunks of `chunk` bytes; returns what passed and what was dropped. */
function filter(bytes: Buffer, maxBytes: number | (() => number), chunk = bytes.length) {
  const passed: Buffer[] = [];
  const dropped: Oversized[] = [];
  const filter = new WsMessageFilter(
    {
      pass: (b) => passed.push(Buffer.from(b)),
      oversized: (id, n, hasMethod, binary) => dropped.push({ id, bytes: n, hasMethod, binary }),
      unbounded: (n) => dropped.push({ id: 'unbounded', bytes: n, hasMethod: false, binary: false }),
    },
    typeof maxBytes === 'number' ? () => maxBytes : maxBytes,
  );
  for (let at = 0; at < bytes.length; at += chunk) filter.push(bytes.subarray(at, at + chunk));
  return { passed: Buffer.concat(passed), dropped };
}

const answer = (id: number, text: string) => JSON.stringify({ jsonrpc: '2.0', id, result: { text } });

describe('WsMessageFilter', () => {
  it('passes the response head and messages within the limit unchanged, however the bytes are cut', () => {
    const wire = Buffer.concat([
      HEAD,
      frame(TEXT, answer(1, 'a')),
      frame(PING, 'p'),
      frame(TEXT, answer(2, 'b'.repeat(300))), // 16-bit length
      frame(TEXT, answer(3, 'c'.repeat(70_000))), // 64-bit length
      frame(TEXT, ''),
    ]);
    for (const chunk of [1, 3, 7, 1000, wire.length]) {
      const { passed, dropped } = filter(wire, 100_000, chunk);
      expect(passed.equals(wire), `in chunks of ${chunk}`).toBe(true);
      expect(dropped).toEqual([]);
    }
  });

  it('drops a message over the limit as it arrives (one frame), reading its id; the next one passes', () => {
    const big = answer(7, 'x'.repeat(5000));
    const next = frame(TEXT, answer(8, 'ok'));
    const wire = Buffer.concat([HEAD, frame(TEXT, big), next]);
    for (const chunk of [1, 64, wire.length]) {
      const { passed, dropped } = filter(wire, 1024, chunk);
      expect(passed.equals(Buffer.concat([HEAD, next])), `in chunks of ${chunk}`).toBe(true);
      expect(dropped).toEqual([{ id: 7, bytes: big.length, hasMethod: false, binary: false }]);
    }
  });

  it('holds a fragmented message until its last frame; control frames between its frames pass at once', () => {
    const whole = answer(4, 'f'.repeat(200));
    const parts = [whole.slice(0, 50), whole.slice(50, 120), whole.slice(120)];
    const frames = [
      frame(TEXT, parts[0]!, { fin: false }),
      frame(CONTINUATION, parts[1]!, { fin: false }),
      frame(CONTINUATION, parts[2]!),
    ];
    const ping = frame(PING, 'p');
    const wire = Buffer.concat([HEAD, frames[0]!, ping, frames[1]!, frames[2]!]);
    const { passed, dropped } = filter(wire, 1024, 5);
    expect(passed.equals(Buffer.concat([HEAD, ping, ...frames]))).toBe(true);
    expect(dropped).toEqual([]);
  });

  it('drops a fragmented message that goes over the limit, none of it passed; the id is read from its first frame', () => {
    const whole = JSON.stringify({
      jsonrpc: '2.0',
      id: 'r-9',
      method: 'sampling/createMessage',
      params: { p: 'z'.repeat(3000) },
    });
    const wire = Buffer.concat([
      HEAD,
      frame(TEXT, whole.slice(0, 800), { fin: false }), // within the limit so far: held
      frame(CONTINUATION, whole.slice(800, 1600), { fin: false }), // over it: dropped with what was held
      frame(CONTINUATION, whole.slice(1600)),
      frame(TEXT, answer(10, 'after')),
    ]);
    const { passed, dropped } = filter(wire, 1024, 100);
    expect(passed.equals(Buffer.concat([HEAD, frame(TEXT, answer(10, 'after'))]))).toBe(true);
    expect(dropped).toEqual([{ id: 'r-9', bytes: whole.length, hasMethod: true, binary: false }]);
  });

  it('reports an oversized binary message as binary', () => {
    const { passed, dropped } = filter(Buffer.concat([HEAD, frame(BINARY, Buffer.alloc(2000))]), 1024);
    expect(passed.equals(HEAD)).toBe(true);
    expect(dropped).toEqual([{ id: undefined, bytes: 2000, hasMethod: false, binary: true }]);
  });

  it('gives up on a message declaring more than MAX_DROPPED_BYTES: nothing after its header passes on', () => {
    // Found from outside: a header claiming ~2^52 bytes swallowed every later byte (keepalive pongs too)
    // until the keepalive gave up, ~40 s later.
    const claim = (bytes: number) => {
      const header = Buffer.alloc(10);
      header[0] = 0x80 | TEXT;
      header[1] = 127;
      header.writeUInt32BE(Math.floor(bytes / 2 ** 32), 2);
      header.writeUInt32BE(bytes % 2 ** 32, 6);
      return header;
    };
    const good = frame(TEXT, answer(1, 'a'));
    const after = Buffer.concat([frame(PING, 'p'), frame(TEXT, answer(2, 'b'))]);
    const { passed, dropped } = filter(Buffer.concat([HEAD, good, claim(2 ** 52), after]), 1024, 7);
    expect(passed.equals(Buffer.concat([HEAD, good]))).toBe(true);
    expect(dropped).toEqual([{ id: 'unbounded', bytes: 2 ** 52, hasMethod: false, binary: false }]);
    // Fragments adding up past it too; at the ceiling itself the message is still dropped as it arrives.
    const last = claim(MAX_DROPPED_BYTES);
    last[0] = 0x80 | CONTINUATION;
    const parts = Buffer.concat([frame(TEXT, '{"jsonrpc":', { fin: false }), last]);
    expect(filter(Buffer.concat([HEAD, parts]), 1024).dropped).toEqual([
      { id: 'unbounded', bytes: MAX_DROPPED_BYTES + 11, hasMethod: false, binary: false },
    ]);
    expect(filter(Buffer.concat([HEAD, claim(MAX_DROPPED_BYTES)]), 1024).dropped).toEqual([]);
  });

  it('reads the limit as each message begins (a reload may change it)', () => {
    let limit = 10_000;
    const first = frame(TEXT, answer(1, 'x'.repeat(2000)));
    const second = frame(TEXT, answer(2, 'y'.repeat(2000)));
    const passed: Buffer[] = [];
    const dropped: unknown[] = [];
    const f = new WsMessageFilter(
      {
        pass: (b) => passed.push(Buffer.from(b)),
        oversized: (id) => dropped.push(id),
        unbounded: () => dropped.push('unbounded'),
      },
      () => limit,
    );
    f.push(Buffer.concat([HEAD, first]));
    limit = 1000;
    f.push(second);
    expect(Buffer.concat(passed).equals(Buffer.concat([HEAD, first]))).toBe(true);
    expect(dropped).toEqual([2]);
  });

  it('passes every byte from a protocol violation on (ws refuses it and closes), held fragments first', () => {
    const held = frame(TEXT, '{"jsonrpc":', { fin: false });
    for (const bad of [
      frame(CONTINUATION, 'x'.repeat(5000), { rsv1: true }), // a reserved bit (nothing was negotiated)
      frame(CONTINUATION, 'x'.repeat(5000), { mask: true }), // a server never masks
      frame(TEXT, 'x'.repeat(5000)), // a new message inside a fragmented one
    ]) {
      const wire = Buffer.concat([HEAD, held, bad, frame(TEXT, 'y'.repeat(5000))]);
      const { passed, dropped } = filter(wire, 1024, 9);
      expect(passed.equals(wire)).toBe(true);
      expect(dropped).toEqual([]);
    }
    const stray = Buffer.concat([HEAD, frame(CONTINUATION, 'x')]);
    expect(filter(stray, 1024).passed.equals(stray)).toBe(true);
  });

  it('filters nothing after a response other than 101', () => {
    const refused = Buffer.from('HTTP/1.1 401 Unauthorized\r\nContent-Length: 3000\r\n\r\n');
    const wire = Buffer.concat([refused, Buffer.from('x'.repeat(3000))]);
    expect(filter(wire, 1024, 10).passed.equals(wire)).toBe(true);
  });
});
