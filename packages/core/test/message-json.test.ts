import { describe, expect, it } from 'vitest';
import { messageJson } from '../src/downstream/message-json.js';

// A response JSON cannot write is still an answer to its request (found from outside: a plugin's result
// with a cycle threw where the listener serialized it, and the client never heard back).
describe('messageJson', () => {
  const cyclic = () => {
    const result: Record<string, unknown> = { content: [] };
    result.self = result;
    return result;
  };

  it('writes what JSON can write as JSON.stringify does', () => {
    const message = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'x' }] } };
    expect(messageJson(message)).toBe(JSON.stringify(message));
  });

  it('answers a response it cannot write with -32603 internal for the same id', () => {
    for (const result of [cyclic(), { n: 5n }]) {
      expect(JSON.parse(messageJson({ jsonrpc: '2.0', id: 'r1', result }))).toMatchObject({
        jsonrpc: '2.0',
        id: 'r1',
        error: { code: -32603, data: { reason: 'internal' } },
      });
    }
    const error = { code: -32000, message: 'm', data: { n: 1n } };
    expect(JSON.parse(messageJson({ jsonrpc: '2.0', id: 3, error }))).toMatchObject({
      id: 3,
      error: { code: -32603 },
    });
  });

  it('answers only the response of a batch it cannot write', () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: cyclic() },
    ];
    expect(JSON.parse(messageJson(batch))).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32603 }) }),
    ]);
  });

  it('still throws for a message that is no response', () => {
    expect(() => messageJson({ jsonrpc: '2.0', method: 'notifications/message', params: { n: 1n } })).toThrow(
      TypeError,
    );
  });
});
