import { createMcpHandler, Server, type ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { encodeModernResult, liftModernRequest } from '../src/downstream/modern-wire.js';
import { SERVER_INFO } from '../src/downstream/server-adapter.js';

// The gateway answers 2026-07-28 requests without an SDK `Server`: what it lifts out of a request and how it
// encodes a result must be what the SDK's own per-request Server did. Each case goes through the SDK's
// `createMcpHandler` with a Server whose handler returns the result (and records what it was handed), and
// through `liftModernRequest` / `encodeModernResult`: the two must agree.

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/logLevel': 'info',
};

interface Seen {
  params: unknown;
  inputResponses: unknown;
  requestState: unknown;
}

async function throughSdk(method: string, params: Record<string, unknown>, result: Record<string, unknown>) {
  const seen: Partial<Seen> = {};
  const handler = createMcpHandler(
    () => {
      const server = new Server(SERVER_INFO, {
        capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} },
      });
      server.fallbackRequestHandler = async (request: { params?: unknown }, ctx: ServerContext) => {
        seen.params = request.params;
        seen.inputResponses = ctx.mcpReq.inputResponses;
        seen.requestState = ctx.mcpReq.requestState();
        return result as never;
      };
      return server;
    },
    { legacy: 'reject' },
  );
  const name =
    typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const response = await handler.fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }),
  );
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  await handler.close();
  return { body, seen };
}

describe('the 2026-07-28 wire, as the SDK frames it', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['tools/list', { tools: [] }],
    ['tools/list', { tools: [], ttlMs: 5000, cacheScope: 'public' }],
    ['tools/list', { tools: [], ttlMs: -1, cacheScope: 'shared' }],
    ['resources/read', { contents: [{ uri: 'a://b', text: 'x' }], _meta: { other: 1 } }],
    ['resources/read', { contents: [], ttlMs: 1.5 }],
    ['tools/call', { content: [{ type: 'text', text: 'hi' }], isError: false }],
    [
      'tools/call',
      { resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } }, requestState: 's' },
    ],
    [
      'prompts/get',
      { messages: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '2' } } },
    ],
    ['completion/complete', { completion: { values: [] } }],
  ];
  for (const [method, result] of cases) {
    it(`encodes a ${method} result ${JSON.stringify(result).slice(0, 60)} as the SDK does`, async () => {
      const params =
        method === 'resources/read' ? { uri: 'a://b' } : method.endsWith('/list') ? {} : { name: 'n' };
      const { body } = await throughSdk(method, { ...params, _meta: ENVELOPE }, result);
      expect(body.result).toEqual(encodeModernResult(method, result));
    });
  }

  it('refuses a result type the method cannot have, where the SDK answered an internal error', async () => {
    const { body } = await throughSdk('tools/list', { _meta: ENVELOPE }, { tools: [], resultType: 'task' });
    expect(body.error).toMatchObject({ code: -32603 });
    expect(() => encodeModernResult('tools/list', { tools: [], resultType: 'task' })).toThrow(/complete/);
  });

  it('lifts the envelope and a retry’s answers and state out of the params, as the SDK hands them to a handler', async () => {
    const params = {
      name: 'n',
      arguments: { x: 1 },
      _meta: { ...ENVELOPE, progressToken: 7, 'vendor/key': 'kept' },
      inputResponses: { ok: { action: 'accept' }, wrapped: { method: 'elicitation/create', result: {} } },
      requestState: 'opaque',
    };
    const { seen } = await throughSdk('tools/call', params, { content: [] });
    const lifted = liftModernRequest(params);
    expect(lifted.params).toEqual(seen.params);
    expect({ ...lifted.client.inputResponses }).toEqual(seen.inputResponses);
    expect(lifted.client.requestState).toBe(seen.requestState);
    expect(lifted.client).toMatchObject({
      era: 'modern',
      capabilities: ENVELOPE['io.modelcontextprotocol/clientCapabilities'],
      logLevel: 'info',
    });
  });

  it('keeps a response keyed __proto__ as an entry, not a prototype', () => {
    const lifted = liftModernRequest(JSON.parse('{"inputResponses":{"__proto__":{"action":"accept"}}}'));
    expect(Object.keys(lifted.client.inputResponses ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(lifted.client.inputResponses)).toBeNull();
  });

  it('drops an envelope-only _meta, keeps a params key named __proto__ as a key, and carries the headers', () => {
    const params = JSON.parse(`{"uri":"a://b","__proto__":{"x":1},"_meta":${JSON.stringify(ENVELOPE)}}`);
    const header = (name: string) => (name === 'mcp-name' ? 'a://b' : undefined);
    const lifted = liftModernRequest(params, header);
    expect(Object.keys(lifted.params)).toEqual(['uri', '__proto__']);
    expect(Object.getPrototypeOf(lifted.params)).toBe(Object.prototype);
    expect(lifted.client.header).toBe(header);
    expect(liftModernRequest({ uri: 'a://b', _meta: 'not an object' }).params).toEqual({
      uri: 'a://b',
      _meta: 'not an object',
    });
  });
});
