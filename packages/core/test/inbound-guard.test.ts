import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../src/errors.js';
import type { FaultReporting, InboundFaults } from '../src/transports/upstream/faults.js';
import { guardInbound } from '../src/upstream/inbound-guard.js';
import { recordingLogger } from './support/recording-logger.js';

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };

/** An upstream transport the test drives: what the gateway sends is kept, `receive` plays the upstream. */
class FakeTransport implements Transport, FaultReporting {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  faults?: InboundFaults;
  sessionId = 'session-1';
  readonly sent: Array<{ message: JSONRPCMessage; options?: TransportSendOptions }> = [];
  readonly versions: string[] = [];
  started = false;

  async start(): Promise<void> {
    this.started = true;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.sent.push(options === undefined ? { message } : { message, options });
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  setProtocolVersion(version: string): void {
    this.versions.push(version);
  }

  receive(message: unknown, extra?: MessageExtraInfo): void {
    this.onmessage?.(message as JSONRPCMessage, extra);
  }
}

function setup() {
  const inner = new FakeTransport();
  const log = recordingLogger();
  const limits = { maxResultBytes: 1000 };
  const guarded = guardInbound(inner, { upstream: 'docs', log, maxResultBytes: () => limits.maxResultBytes });
  const received: Array<{ message: JSONRPCMessage; extra?: MessageExtraInfo }> = [];
  guarded.onmessage = (message, extra) => {
    received.push(extra === undefined ? { message } : { message, extra });
  };
  const request = (id: string | number, method = 'tools/list', params: Record<string, unknown> = {}) =>
    guarded.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
  const messages = () => received.map((r) => r.message as Record<string, unknown>);
  const warnings = () => log.entries.filter((e) => e.level === 'warn');
  return { inner, log, limits, guarded, received, request, messages, warnings };
}

/** The error response the guard puts in place of an upstream's answer to `id`. */
function invalidResult(id: string | number, method = 'tools/list') {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.InternalError,
      message: expect.stringContaining(`Upstream 'docs' answered ${method} with an invalid result`),
      data: { reason: 'upstream_invalid_result', upstream: 'docs', method },
    },
  };
}

describe('guardInbound', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes the answer to a request it saw sent, once', async () => {
    const t = setup();
    await t.request(1);
    await t.request('s-2');
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    t.inner.receive({ jsonrpc: '2.0', id: 's-2', error: { code: -32601, message: 'Method not found' } });
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: { tools: ['again'] } });
    t.inner.receive({ jsonrpc: '2.0', id: 's-2', result: {} });
    expect(t.messages()).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [] } },
      { jsonrpc: '2.0', id: 's-2', error: { code: -32601, message: 'Method not found' } },
    ]);
    expect(t.inner.sent.map((s) => (s.message as { id: unknown }).id)).toEqual([1, 's-2']);
  });

  it('drops answers to ids it never sent (another type, no id, null id) and logs them', async () => {
    const t = setup();
    await t.request(1);
    t.inner.receive({ jsonrpc: '2.0', id: 2, result: {} });
    t.inner.receive({ jsonrpc: '2.0', id: '1', result: {} });
    t.inner.receive({ jsonrpc: '2.0', result: {} });
    t.inner.receive({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(t.messages()).toEqual([]);
    expect(t.warnings()).toEqual([
      {
        level: 'warn',
        message: 'dropped a response to no request of ours (unknown or already answered id)',
        fields: { id: 2 },
      },
    ]);
    // Still awaited: the real answer passes.
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: {} });
    expect(t.messages()).toHaveLength(1);
  });

  it('turns a result that is no object into that request’s upstream_invalid_result', async () => {
    const t = setup();
    const results = [null, [], 'text', 42, true];
    for (const [i, result] of results.entries()) {
      await t.request(i);
      t.inner.receive({ jsonrpc: '2.0', id: i, result });
    }
    expect(t.messages()).toEqual(results.map((_, i) => invalidResult(i)));
    // Answered: a second answer to the same id is dropped.
    t.inner.receive({ jsonrpc: '2.0', id: 0, result: {} });
    expect(t.messages()).toHaveLength(results.length);
  });

  it('turns an error that is no JSON-RPC error, or an answer with neither, into upstream_invalid_result', async () => {
    const t = setup();
    const answers = [
      { error: 'boom' },
      { error: null },
      { error: { message: 'no code' } },
      { error: { code: '-32000', message: 'string code' } },
      { error: { code: 1.5, message: 'fractional code' } },
      { error: { code: -32000 } },
      {},
    ];
    for (const [i, answer] of answers.entries()) {
      await t.request(i, 'resources/read');
      t.inner.receive({ jsonrpc: '2.0', id: i, ...answer });
    }
    expect(t.messages()).toEqual(answers.map((_, i) => invalidResult(i, 'resources/read')));
    expect(t.messages()[6]!.error).toMatchObject({
      message: expect.stringContaining('neither result nor error'),
    });
  });

  it('takes a modern result without resultType as complete and leaves the others alone', async () => {
    const t = setup();
    await t.request(1, 'tools/call', { name: 'x', _meta: MODERN_META });
    await t.request(2, 'server/discover');
    await t.request(3, 'tools/call', { name: 'x', _meta: MODERN_META });
    await t.request(4, 'tools/call', { name: 'x' });
    await t.request(5, 'tools/call', { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } });
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    t.inner.receive({ jsonrpc: '2.0', id: 2, result: { supportedVersions: ['2026-07-28'] } });
    t.inner.receive({ jsonrpc: '2.0', id: 3, result: { resultType: 'input_required', inputRequests: {} } });
    t.inner.receive({ jsonrpc: '2.0', id: 4, result: { content: [] } });
    t.inner.receive({ jsonrpc: '2.0', id: 5, result: { content: [] } });
    expect(t.messages()).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [], resultType: 'complete' } },
      { jsonrpc: '2.0', id: 2, result: { supportedVersions: ['2026-07-28'], resultType: 'complete' } },
      { jsonrpc: '2.0', id: 3, result: { resultType: 'input_required', inputRequests: {} } },
      { jsonrpc: '2.0', id: 4, result: { content: [] } },
      { jsonrpc: '2.0', id: 5, result: { content: [] } },
    ]);
    expect(t.log.entries.filter((e) => e.level === 'info')).toHaveLength(1);
  });

  it('forgets a request once it sends notifications/cancelled for it', async () => {
    const t = setup();
    await t.request(1);
    await t.request(2);
    await t.guarded.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: {} });
    t.inner.receive({ jsonrpc: '2.0', id: 2, result: {} });
    expect(t.messages().map((m) => m.id)).toEqual([2]);
    expect(t.inner.sent.map((s) => (s.message as { method: string }).method)).toEqual([
      'tools/list',
      'tools/list',
      'notifications/cancelled',
    ]);
  });

  it('does not take its own responses to upstream requests for requests', async () => {
    const t = setup();
    await t.guarded.send({ jsonrpc: '2.0', id: 9, result: {} });
    t.inner.receive({ jsonrpc: '2.0', id: 9, result: {} });
    expect(t.messages()).toEqual([]);
  });

  it('drops malformed notifications, logs them, and passes valid and unknown ones', () => {
    const t = setup();
    const malformed = [
      { method: 'notifications/resources/updated', params: {} },
      { method: 'notifications/resources/updated', params: { uri: 5 } },
      { method: 'notifications/progress', params: { progress: 1 } },
      { method: 'notifications/progress', params: { progressToken: { t: 1 }, progress: 1 } },
      { method: 'notifications/progress', params: { progressToken: 't', progress: '50%' } },
      { method: 'notifications/message', params: { level: 'verbose', data: 'x' } },
      { method: 'notifications/message' },
      { method: 'notifications/cancelled', params: { requestId: { id: 1 } } },
      { method: 'notifications/tools/list_changed', params: ['not', 'an', 'object'] },
      { method: 'notifications/whatever', params: 'text' },
    ];
    const valid = [
      { method: 'notifications/resources/updated', params: { uri: 'file:///a' } },
      { method: 'notifications/progress', params: { progressToken: 't', progress: 1, total: 2 } },
      { method: 'notifications/progress', params: { progressToken: 3, progress: 0.5 } },
      { method: 'notifications/message', params: { level: 'emergency', data: { any: 'thing' } } },
      { method: 'notifications/cancelled', params: { requestId: 'r1', reason: 'gone' } },
      { method: 'notifications/cancelled', params: {} },
      { method: 'notifications/tools/list_changed' },
      { method: 'notifications/whatever', params: { anything: [1, 2] } },
    ];
    for (const n of [...malformed, ...valid]) t.inner.receive({ jsonrpc: '2.0', ...n });
    expect(t.messages()).toEqual(valid.map((n) => ({ jsonrpc: '2.0', ...n })));
    expect(t.warnings().map((w) => w.fields?.method)).toEqual([
      'notifications/resources/updated',
      'notifications/progress',
      'notifications/message',
      'notifications/cancelled',
      'notifications/tools/list_changed',
      'notifications/whatever',
    ]);
    expect(t.warnings()[0]!.fields?.problem).toBe('params.uri is not a string');
  });

  it('passes the upstream’s own requests whatever their params', () => {
    const t = setup();
    const ping = { jsonrpc: '2.0', id: 'up-1', method: 'ping' };
    const odd = { jsonrpc: '2.0', id: 7, method: 'notifications/progress', params: 'not checked' };
    t.inner.receive(ping);
    t.inner.receive(odd);
    expect(t.messages()).toEqual([ping, odd]);
  });

  it('answers an upstream request whose id is no string or number with -32600, and logs it once a window', () => {
    // Found from outside: `roots/list` with id null, {}, [7] or true got no answer and no log line.
    const t = setup();
    for (const id of [null, { x: 1 }, [7], true])
      t.inner.receive({ jsonrpc: '2.0', id, method: 'roots/list' });
    expect(t.messages()).toEqual([]);
    expect(t.inner.sent.map((s) => s.message)).toEqual(
      Array(4).fill({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid request: "id" must be a string or a number' },
      }),
    );
    expect(t.warnings()).toEqual([
      {
        level: 'warn',
        message: 'refused an upstream request whose id is not a string or number',
        fields: { method: 'roots/list', id: 'null' },
      },
    ]);
  });

  it('drops messages that are no object', () => {
    const t = setup();
    for (const m of [null, 'text', 42, [{ jsonrpc: '2.0', id: 1, result: {} }]]) t.inner.receive(m);
    expect(t.messages()).toEqual([]);
    expect(t.warnings()).toEqual([
      { level: 'warn', message: 'dropped a message that is not JSON-RPC', fields: { text: 'null' } },
    ]);
  });

  it('fails an awaited request whose answer was oversized with result_too_large, at the live limit', async () => {
    const t = setup();
    expect(t.inner.faults).toBeDefined();
    expect(t.inner.faults!.maxBytes()).toBe(1000);
    await t.request(1);
    t.limits.maxResultBytes = 500;
    await t.request(2);
    expect(t.inner.faults!.maxBytes()).toBe(500);
    t.inner.faults!.oversized(2, 9000);
    expect(t.messages()).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: ErrorCode.ResultTooLarge,
          message: expect.stringContaining('9000 bytes'),
          data: { reason: 'result_too_large', upstream: 'docs', bytes: 9000, limit: 500 },
        },
      },
    ]);
    // Not awaited (answered, unknown, unreadable): logged only.
    t.inner.faults!.oversized(2, 9000);
    t.inner.faults!.oversized(3, 9000);
    t.inner.faults!.oversized(undefined, 9000);
    t.inner.receive({ jsonrpc: '2.0', id: 2, result: {} });
    expect(t.messages()).toHaveLength(1);
    expect(t.warnings()[0]).toEqual({
      level: 'warn',
      message: 'discarded an upstream message over limits.maxResultBytes',
      fields: { bytes: 9000, limit: 500 },
    });
    // The other request is still awaited.
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: {} });
    expect(t.messages()).toHaveLength(2);
  });

  it('answers the upstream’s own oversized request at once, and never takes it for an answer', async () => {
    const t = setup();
    await t.request(7);
    // The upstream's request 7 (ids of both sides count from 0 independently) was over the limit.
    t.inner.faults!.oversized(7, 9000, true);
    expect(t.messages()).toEqual([]);
    expect(t.inner.sent.at(-1)?.message).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: ErrorCode.InvalidRequest,
        message: expect.stringContaining('9000 bytes'),
        data: { reason: 'result_too_large', bytes: 9000, limit: 1000 },
      },
    });
    // Our request 7 is still awaited; an oversized notification (no id) is only logged.
    t.inner.faults!.oversized(undefined, 9000, true);
    t.inner.receive({ jsonrpc: '2.0', id: 7, result: {} });
    expect(t.messages()).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
  });

  it('fails the request a too deeply nested answer spoils with upstream_invalid_result, and only that one', async () => {
    const t = setup();
    await t.request(1, 'tools/call');
    await t.request(2, 'tools/call');
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: { content: [], structuredContent: { deep } } });
    expect(t.messages()).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: ErrorCode.InternalError,
          message: expect.stringContaining('deeper than 200 levels (twice limits.maxJsonDepth)'),
          data: expect.objectContaining({ reason: 'upstream_invalid_result', upstream: 'docs' }),
        },
      },
    ]);
    // Its own deep request is refused at once; a deep notification and a deep stray answer are dropped.
    t.inner.receive({ jsonrpc: '2.0', id: 9, method: 'sampling/createMessage', params: { deep } });
    expect(t.inner.sent.at(-1)?.message).toMatchObject({
      id: 9,
      error: { code: -32600, data: { reason: 'too_deep' } },
    });
    t.inner.receive({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: deep },
    });
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: { deep } });
    expect(t.messages()).toHaveLength(1);
    // The other request is still served.
    t.inner.receive({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    expect(t.messages().at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [] } });
  });

  it('fails an awaited request the upstream failed outside JSON-RPC with upstream_error', async () => {
    const t = setup();
    await t.request('a');
    t.inner.faults!.failed('a', 'HTTP 502 Bad Gateway', { status: 502 });
    t.inner.faults!.failed('a', 'HTTP 502 Bad Gateway', { status: 502 });
    t.inner.faults!.failed('never-sent', 'HTTP 500');
    expect(t.messages()).toEqual([
      {
        jsonrpc: '2.0',
        id: 'a',
        error: {
          code: ErrorCode.UpstreamError,
          message: expect.stringContaining('HTTP 502 Bad Gateway'),
          data: { status: 502, reason: 'upstream_error', upstream: 'docs' },
        },
      },
    ]);
  });

  it('logs unparsable bytes without answering anything', async () => {
    const t = setup();
    await t.request(1);
    t.inner.faults!.unparsable('Server v1.2 starting…', 'a stdout line');
    t.inner.faults!.unparsable('x'.repeat(5000), 'an HTTP body');
    expect(t.messages()).toEqual([]);
    expect(t.warnings().map((w) => w.message)).toEqual([
      'dropped a stdout line that is not JSON-RPC',
      'dropped an HTTP body that is not JSON-RPC',
    ]);
    expect(t.warnings()[1]!.fields).toEqual({ text: `${'x'.repeat(200)}… (5000 chars)` });
  });

  it('logs each kind of drop at most once per window, then counts what it left out', async () => {
    vi.useFakeTimers({ now: 0 });
    const t = setup();
    for (let i = 0; i < 100; i++) {
      t.inner.receive({ jsonrpc: '2.0', id: 1000 + i, result: {} });
      t.inner.faults!.unparsable(`junk ${i}`, 'a stdout line');
    }
    expect(t.warnings()).toHaveLength(2);
    vi.advanceTimersByTime(10_000);
    t.inner.receive({ jsonrpc: '2.0', id: 5000, result: {} });
    expect(t.warnings()).toHaveLength(3);
    expect(t.warnings()[2]!.fields).toEqual({ id: 5000, suppressed: 99 });
  });

  it('forgets the oldest request past 65,536 unanswered ones', async () => {
    const t = setup();
    for (let i = 0; i <= 65_536; i++) await t.request(i);
    t.inner.receive({ jsonrpc: '2.0', id: 0, result: {} });
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: {} });
    t.inner.receive({ jsonrpc: '2.0', id: 65_536, result: {} });
    expect(t.messages().map((m) => m.id)).toEqual([1, 65_536]);
  });

  it('forwards everything else to the transport it wraps', async () => {
    const t = setup();
    expect(t.guarded.sessionId).toBe('session-1');
    t.inner.sessionId = 'session-2';
    expect(t.guarded.sessionId).toBe('session-2');
    t.guarded.setProtocolVersion?.('2025-11-25');
    expect(t.inner.versions).toEqual(['2025-11-25']);
    await t.guarded.start();
    expect(t.inner.started).toBe(true);

    const closed = vi.fn();
    const errors = vi.fn();
    t.guarded.onclose = closed;
    t.guarded.onerror = errors;
    expect(t.inner.onclose).toBe(closed);
    t.inner.onerror?.(new Error('x'));
    expect(errors).toHaveBeenCalledOnce();
    await t.guarded.close();
    expect(closed).toHaveBeenCalledOnce();

    await t.guarded.send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { relatedRequestId: 'r' });
    expect(t.inner.sent.at(-1)).toEqual({
      message: { jsonrpc: '2.0', id: 1, method: 'ping' },
      options: { relatedRequestId: 'r' },
    });
    const extra = { authInfo: { token: 't', clientId: 'c', scopes: [] } };
    t.inner.receive({ jsonrpc: '2.0', id: 1, result: {} }, extra);
    expect(t.received).toEqual([{ message: { jsonrpc: '2.0', id: 1, result: {} }, extra }]);
  });

  it('installs its own onmessage on the transport only while one is set', () => {
    const t = setup();
    expect(typeof t.guarded.onmessage).toBe('function');
    expect(typeof t.inner.onmessage).toBe('function');
    t.guarded.onmessage = undefined;
    expect(t.guarded.onmessage).toBeUndefined();
    expect(t.inner.onmessage).toBeUndefined();
  });
});
