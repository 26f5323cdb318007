import { describe, expect, it } from 'vitest';
import { readBoardMessage } from '../src/board-messages.js';

const approval = {
  id: 'a1',
  identity: 'carol',
  tool: 't__echo',
  server: 't',
  arguments: { text: 'x' },
  digest: 'sha256:00',
  groups: ['leads'],
  createdAt: 1,
  expiresAt: 2,
};

describe('readBoardMessage', () => {
  it('reads what replicas publish', () => {
    for (const message of [
      { t: 'hello' },
      { t: 'held', approval },
      { t: 'gone', id: 'a1' },
      { t: 'gone', id: 'a1', ended: { id: 'a1', groups: ['leads'], outcome: 'approved', by: 'dan', at: 3 } },
      { t: 'decide', id: 'a1', decision: 'deny', approver: 'dan' },
    ]) {
      expect(readBoardMessage(JSON.stringify(message))).toEqual(message);
    }
  });

  it('is undefined for anything else, never a throw', () => {
    for (const raw of [
      'null',
      '42',
      '"held"',
      'not json',
      '{"t":"held","approval":null}',
      '{"t":"held"}',
      '{"t":"gone"}',
      '{"t":"gone","id":"a1","ended":{"id":7}}',
      '{"t":"decide","id":"a1","decision":"maybe","approver":"x"}',
      '{"t":"decide","id":"a1","decision":"approve"}',
      '{"t":"unknown"}',
      '{"__proto__":{"t":"hello"}}',
      JSON.stringify({ t: 'held', approval: { ...approval, groups: 'leads' } }),
    ]) {
      expect(readBoardMessage(raw), raw).toBeUndefined();
    }
  });
});
