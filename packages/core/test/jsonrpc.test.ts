import { describe, expect, it } from 'vitest';
import { checkEnvelope, decodeFrame } from '../src/downstream/jsonrpc.js';

describe('checkEnvelope', () => {
  it('passes well-formed requests, notifications, responses and batches', () => {
    for (const message of [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      {
        jsonrpc: '2.0',
        id: 'a',
        method: 'resources/read',
        params: { uri: 'x+y://z', _meta: { progressToken: 7 } },
      },
      { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { progressToken: 'p', other: [1] } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 3, result: {} },
      [
        { jsonrpc: '2.0', id: 4, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ],
    ]) {
      expect(checkEnvelope(message), JSON.stringify(message)).toBeUndefined();
    }
  });

  it('refuses a broken envelope with -32600, carrying the id when there is one', () => {
    expect(checkEnvelope([])).toMatchObject({ id: null, error: { code: -32600 } });
    expect(checkEnvelope(42)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(checkEnvelope({ jsonrpc: '1.0', id: 1, method: 'ping' })).toMatchObject({
      id: 1,
      error: { code: -32600, message: expect.stringContaining('"jsonrpc" must be "2.0"') },
    });
    expect(checkEnvelope({ jsonrpc: '2.0', id: {}, method: 'ping' })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(checkEnvelope({ jsonrpc: '2.0', id: 5 })).toMatchObject({ id: 5, error: { code: -32600 } });
    // A batch inside a batch is no message.
    expect(checkEnvelope([[{ jsonrpc: '2.0', id: 6, method: 'ping' }]])).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining('must be an object') },
    });
  });

  it('refuses, with -32602 and the id, a request the SDK would drop unanswered', () => {
    const cases: [unknown, string][] = [
      [['positional'], '"params" must be an object: MCP requests take named parameters'],
      [{ _meta: null }, '"params._meta" must be an object'],
      [{ _meta: 'x' }, '"params._meta" must be an object'],
      [{ _meta: [] }, '"params._meta" must be an object'],
      [{ _meta: { progressToken: null } }, '"params._meta.progressToken" must be a string or a number'],
      [
        { _meta: { progressToken: { nested: 1 } } },
        '"params._meta.progressToken" must be a string or a number',
      ],
    ];
    for (const [params, detail] of cases) {
      expect(
        checkEnvelope({ jsonrpc: '2.0', id: 9, method: 'ping', params }),
        JSON.stringify(params),
      ).toMatchObject({ id: 9, error: { code: -32602, message: `Invalid params: ${detail}` } });
    }
    // In a batch, the first such request decides the answer.
    expect(
      checkEnvelope([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: 0 } },
      ]),
    ).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  it('refuses, with -32602, bad params of the requests the SDK answers itself (it would say -32603)', () => {
    expect(
      checkEnvelope({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'loud' } }),
    ).toMatchObject({
      id: 1,
      error: {
        code: -32602,
        message: expect.stringMatching(/^Invalid params: logging\/setLevel: params\.level: /),
      },
    });
    expect(
      checkEnvelope({
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    ).toMatchObject({
      id: 2,
      error: { code: -32602, message: expect.stringContaining('params.protocolVersion') },
    });
    expect(
      checkEnvelope({ jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'debug' } }),
    ).toBeUndefined();
    expect(
      checkEnvelope({
        jsonrpc: '2.0',
        id: 4,
        method: 'initialize',
        params: {
          protocolVersion: '2024-11-05',
          capabilities: { roots: { listChanged: true }, sampling: {}, experimental: { x: {} } },
          clientInfo: { name: 'x', version: '1', title: 'X' },
        },
      }),
    ).toBeUndefined();
  });

  it('passes a method named like an Object.prototype member on, unchecked (the SDK answers it as unknown)', () => {
    for (const method of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(checkEnvelope({ jsonrpc: '2.0', id: 1, method, params: {} }), method).toBeUndefined();
      expect(checkEnvelope({ jsonrpc: '2.0', id: 1, method }), method).toBeUndefined();
    }
  });

  it('checks the params of initialize and logging/setLevel under a 2026-07-28 envelope (a session answers them)', () => {
    const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    const bad = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {}, _meta } };
    // A session's SDK Server answers them whatever the claim (on HTTP a sessionless claim never gets here:
    // the listener classifies it first): -32602, not the SDK's -32603.
    expect(checkEnvelope(bad)).toMatchObject({
      id: 1,
      error: { code: -32602, message: expect.stringContaining('protocolVersion') },
    });
    expect(decodeFrame(JSON.stringify(bad))).toMatchObject({
      messages: [],
      errors: [{ id: 1, error: { code: -32602 } }],
    });
    expect(
      checkEnvelope({
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: {
          protocolVersion: '2026-07-28',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
          _meta,
        },
      }),
    ).toBeUndefined();
  });
});

describe('decodeFrame', () => {
  it('answers each malformed message of a batch with its own id, and dispatches the others', () => {
    // Found by the fuzz sweep: the first message's refusal (id null) was the batch's only answer, and the
    // client waited forever for id "a".
    const batch = [
      { jsonrpc: 7, 'id?': 'a', method: 'ping' },
      { jsonrpc: 7, id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
      [{ jsonrpc: '2.0', id: 'c', method: 'ping' }],
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ];
    const { messages, errors } = decodeFrame(JSON.stringify(batch));
    expect(messages).toEqual([batch[2], batch[4]]);
    expect(errors.map((e) => [e.id, e.error.code])).toEqual([
      [null, -32600],
      ['a', -32600],
      [null, -32600],
    ]);
  });

  it('answers an empty batch, a text that is no JSON and a non-message once, with id null', () => {
    for (const [text, code] of [
      ['[]', -32600],
      ['{"jsonrpc":', -32700],
      ['42', -32600],
    ] as const) {
      const { messages, errors } = decodeFrame(text);
      expect(messages, text).toEqual([]);
      expect(
        errors.map((e) => [e.id, e.error.code]),
        text,
      ).toEqual([[null, code]]);
    }
  });

  it('refuses a batch holding a 2026-07-28 message whole, each request by its id (HTTP: once, 400)', () => {
    const claim = (version: unknown) => ({ 'io.modelcontextprotocol/protocolVersion': version });
    const ping = (id: string) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const refused = {
      id: null,
      error: {
        code: -32600,
        message:
          'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
      },
    };
    const cases: [unknown[], (string | null)[]][] = [
      [
        [
          ping('a'),
          { jsonrpc: '2.0', id: 'b', method: 'tools/list', params: { _meta: claim('2026-07-28') } },
        ],
        ['a', 'b'],
      ],
      // A notification, a malformed claim and one beside a malformed message claim the era all the same.
      [
        [
          ping('a'),
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: claim('2026-07-28') } },
        ],
        ['a'],
      ],
      [[{ jsonrpc: '2.0', id: 'c', method: 'tools/list', params: { _meta: claim(7) } }], ['c']],
      [
        [
          { jsonrpc: 7, id: 'd', method: 'ping' },
          { jsonrpc: '2.0', id: 'e', method: 'x', params: { _meta: claim('2026-07-28') } },
        ],
        ['d', 'e'],
      ],
      // Nothing to answer by id: one refusal.
      [[{ jsonrpc: '2.0', method: 'notifications/x', params: { _meta: claim('2026-07-28') } }], [null]],
    ];
    for (const [batch, ids] of cases) {
      const text = JSON.stringify(batch);
      expect(decodeFrame(text), text).toMatchObject({
        messages: [],
        errors: ids.map((id) => ({ ...refused, id })),
      });
      expect(checkEnvelope(batch), text).toMatchObject(refused);
    }
    // A 2025 batch (no claim, `_meta` of its own) is still served, on a session of any 2025 revision.
    const legacy = [
      ping('a'),
      { jsonrpc: '2.0', id: 'f', method: 'tools/list', params: { _meta: { progressToken: 1 } } },
    ];
    expect(decodeFrame(JSON.stringify(legacy))).toEqual({ messages: legacy, errors: [] });
    expect(checkEnvelope(legacy)).toBeUndefined();
    // A single 2026-07-28 message is no batch.
    const single = { jsonrpc: '2.0', id: 'g', method: 'tools/list', params: { _meta: claim('2026-07-28') } };
    expect(decodeFrame(JSON.stringify(single))).toEqual({ messages: [single], errors: [] });
  });
});

describe('malformed responses to what the gateway asked the client', () => {
  const failed = (id: string | number, why: RegExp) => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: expect.stringMatching(why) },
  });

  it('are refused (-32600) and answered in their place with an error, so the question fails at once', () => {
    const cases: [unknown, RegExp][] = [
      [{ jsonrpc: '2.0', id: 1, result: 'x' }, /needs a "result" that is an object/],
      [{ jsonrpc: '2.0', id: 1, result: null }, /needs a "result" that is an object/],
      [{ jsonrpc: '2.0', id: 1, result: [1] }, /needs a "result" that is an object/],
      [{ jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } }, /"error.code" that is an integer/],
      [{ jsonrpc: '2.0', id: 1, error: { code: 1 } }, /"error.message" that is a string/],
      [{ jsonrpc: '2.0', id: 1, error: 'no' }, /"error" that is an object/],
      [{ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } }, /has both/],
      [{ jsonrpc: '2.0', id: 1 }, /has no "result" or "error"/],
    ];
    for (const [message, why] of cases) {
      const invalid = checkEnvelope(message);
      expect(invalid, JSON.stringify(message)).toMatchObject({ id: 1, error: { code: -32600 } });
      expect(invalid?.answers).toEqual([failed(1, why)]);
      const frame = decodeFrame(JSON.stringify(message));
      expect(frame.errors).toMatchObject([{ id: 1, error: { code: -32600 } }]);
      expect(frame.messages).toEqual([failed(1, why)]);
    }
  });

  it('in a batch of answers, each is answered in its place; a well-formed response passes as it is', () => {
    const ok = { jsonrpc: '2.0', id: 3, result: { roots: [] } };
    const invalid = checkEnvelope([
      { jsonrpc: '2.0', id: 1, result: 'x' },
      ok,
      { jsonrpc: '2.0', id: 2, error: {} },
    ]);
    expect(invalid?.answers).toEqual([failed(1, /result/), failed(2, /code/)]);
    expect(checkEnvelope(ok)).toBeUndefined();
    expect(
      checkEnvelope({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse' } }),
    ).toBeUndefined();
    // With no usable id nothing waits for it: refused, nothing answered in its place.
    const unanswerable = checkEnvelope({ jsonrpc: '2.0', id: {}, result: {} });
    expect(unanswerable).toMatchObject({ id: null, error: { code: -32600 } });
    expect(unanswerable?.answers).toBeUndefined();
  });
});
