import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { JsonLineTransport } from '../src/transports/downstream/json-line-transport.js';

/** A transport on an in-memory pair: what it delivers and what it answers itself. */
async function open() {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new JsonLineTransport(input, output);
  const delivered: JSONRPCMessage[] = [];
  const answered: Record<string, unknown>[] = [];
  transport.onmessage = (message) => delivered.push(message);
  output.setEncoding('utf8');
  let text = '';
  output.on('data', (chunk: string) => {
    text += chunk;
    const lines = text.split('\n');
    text = lines.pop() ?? '';
    for (const line of lines) answered.push(JSON.parse(line) as Record<string, unknown>);
  });
  await transport.start();
  return { input, delivered, answered };
}

/** Writes `text` in 64 KiB chunks, as a pipe delivers it. */
function writeChunked(input: PassThrough, text: string): void {
  for (let i = 0; i < text.length; i += 65_536) input.write(text.slice(i, i + 65_536));
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe('JsonLineTransport', () => {
  it('reads a long line in work linear in its length (it once searched the whole line per chunk)', async () => {
    // The characters searched for a newline while a 12 MiB line arrives in 64 KiB chunks: each chunk once
    // (about the line's length), where appending each chunk to the line and searching it again searched
    // ~n²/2 chunk = 96 times the line (no timing: the work itself is counted).
    const { input, delivered } = await open();
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { x: 'y'.repeat(12 * 2 ** 20) },
    });
    const indexOf = String.prototype.indexOf;
    let searched = 0;
    String.prototype.indexOf = function (this: string, search: string, position?: number) {
      if (search === '\n') searched += this.length - (position ?? 0);
      return indexOf.call(this, search, position);
    };
    try {
      writeChunked(input, `${line}\n`);
      await until(() => delivered.length === 1);
    } finally {
      String.prototype.indexOf = indexOf;
    }
    expect(searched).toBeGreaterThanOrEqual(line.length);
    expect(searched).toBeLessThan(2 * line.length);
  }, 60_000);

  it('answers a line over 16 MiB once, drops the rest of it, and reads the next line', async () => {
    const { input, delivered, answered } = await open();
    writeChunked(
      input,
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'y'.repeat(17 * 1024 * 1024)}"}}\n`,
    );
    input.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await until(() => delivered.length === 1);
    expect(delivered).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(answered).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('exceeds') } },
    ]);
  }, 60_000);

  it('delivers several lines of one chunk, and a line split over chunks, in order', async () => {
    const { input, delivered } = await open();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n\n{"jsonrpc":"2.0","id":2,"met');
    input.write('hod":"ping"}\r\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await until(() => delivered.length === 3);
    expect(delivered.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
  });
});
