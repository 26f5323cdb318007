import { describe, expect, it } from 'vitest';
import { nextCursorOf } from '../src/misbehave/listing.js';
import { MISBEHAVE_MODES, modesOn, parseMisbehaveModes } from '../src/misbehave/modes.js';
import { REWRITE_MARKER, ResponseRewriter } from '../src/misbehave/response-rewriter.js';
import { SseRewriter } from '../src/misbehave/sse-rewriter.js';
import { resolveOptions } from '../src/options.js';

describe('misbehave modes', () => {
  it('validates names, collapses duplicates and refuses both cursor modes', () => {
    expect(parseMisbehaveModes(['huge-result', 'huge-result', 'http-500'])).toEqual([
      'huge-result',
      'http-500',
    ]);
    expect(() => parseMisbehaveModes(['nope'])).toThrow(
      /unknown misbehave mode 'nope' \(one of: no-result-type,/,
    );
    expect(() => parseMisbehaveModes(['repeating-cursor', 'endless-cursor'])).toThrow(/exclude each other/);
    expect(() => resolveOptions({ misbehave: ['nope' as never] })).toThrow(RangeError);
    expect(modesOn(['stdout-noise', 'http-500', 'unknown-ids'], 'http')).toEqual({
      served: ['http-500', 'unknown-ids'],
      ignored: ['stdout-noise'],
    });
    expect(modesOn([...MISBEHAVE_MODES], 'stdio').ignored).toEqual(['http-500']);
  });

  it('bad-tool-names adds its names to the named tools once', () => {
    const names = resolveOptions({
      toolNames: ['my.tool', 'other'],
      misbehave: ['bad-tool-names'],
    }).toolNames;
    expect(names).toEqual(['my.tool', 'other', 'my tool', 'my/tool', 'my_tool', 'ünïcødé', 'x'.repeat(100)]);
  });

  it('endless cursors never repeat, repeating ones always do', () => {
    expect(nextCursorOf('endless-cursor', undefined)).toBe('page-1');
    expect(nextCursorOf('endless-cursor', 'page-1')).toBe('page-2');
    expect(nextCursorOf('endless-cursor', 'page-999')).toBe('page-1000');
    expect(nextCursorOf('repeating-cursor', 'page-1')).toBe('again');
  });
});

describe('ResponseRewriter', () => {
  const response = { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', content: [] } };

  it('passes requests and notifications, and responses when no response mode is on', () => {
    const rewriter = new ResponseRewriter(new Set(['huge-result']));
    const notification = { jsonrpc: '2.0', method: 'notifications/progress', params: {} };
    expect(rewriter.rewrite(notification)).toEqual([notification]);
    expect(rewriter.rewrite(response)[0]).toBe(response);
  });

  it('orders unknown id, rewritten response, duplicate, malformed notifications', () => {
    const rewriter = new ResponseRewriter(
      new Set(['unknown-ids', 'duplicate-ids', 'malformed-notifications', 'no-result-type'] as const),
    );
    const out = rewriter.rewrite(response) as { id?: unknown; method?: unknown; result?: unknown }[];
    expect(out.map((m) => m.id ?? m.method)).toEqual([
      'unknown-1',
      7,
      7,
      'notifications/resources/updated',
      'notifications/resources/updated',
      'notifications/progress',
      'notifications/message',
      'notifications/tools/list_changed',
      'notifications/x-unknown',
    ]);
    expect(out[1]?.result).toEqual({ content: [] });
    expect(rewriter.rewrite(response)[0]).toMatchObject({ id: 'unknown-2' });
  });

  it('replaces marked results, keeping resultType unless no-result-type', () => {
    const marked = (rewrite: string) => ({
      jsonrpc: '2.0',
      id: 1,
      result: { resultType: 'complete', content: [], _meta: { [REWRITE_MARKER]: rewrite } },
    });
    const plain = new ResponseRewriter(new Set(['invalid-result'] as const));
    expect(plain.rewrite(marked('invalid-result'))[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: 'not-an-array', resultType: 'complete' },
    });
    expect(plain.rewrite(marked('non-object-result'))[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 'not an object',
    });
    const bare = new ResponseRewriter(new Set(['invalid-result', 'no-result-type'] as const));
    expect(bare.rewrite(marked('invalid-result'))[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: 'not-an-array' },
    });
  });
});

describe('SseRewriter', () => {
  it('rewrites events split across chunks anywhere, and passes the rest byte for byte', () => {
    const rewriter = new SseRewriter((message) => {
      const m = message as { id?: number };
      return m.id === 1 ? [message, { jsonrpc: '2.0', id: 1, result: { again: 'é' } }] : [message];
    });
    const stream =
      'id: p\ndata: \n\n: keepalive\n\nevent: message\nid: 9\ndata: {"jsonrpc":"2.0","id":1,"result":{"t":"ünï"}}\n\n' +
      'event: message\ndata: {"jsonrpc":"2.0","method":"x"}\n\n';
    let out = '';
    for (let i = 0; i < stream.length; i += 7) out += rewriter.push(stream.slice(i, i + 7));
    out += rewriter.flush();
    expect(out).toBe(
      'id: p\ndata: \n\n: keepalive\n\n' +
        'event: message\nid: 9\ndata: {"jsonrpc":"2.0","id":1,"result":{"t":"ünï"}}\n\n' +
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"again":"é"}}\n\n' +
        'event: message\ndata: {"jsonrpc":"2.0","method":"x"}\n\n',
    );
  });
});
