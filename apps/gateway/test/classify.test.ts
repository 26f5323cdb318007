import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { classifyPost } from '../src/listeners/classify.js';

/**
 * The era rules of a sessionless POST as the SDK's classifier decides them. They pin what the workspace's
 * patch of `@modelcontextprotocol/server` (patches/README.md: responses are recognised by their `result`
 * or `error` member before the response schemas run) must not change.
 */
const MODERN = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'classify-test', version: '1.0.0' },
};

function post(body: unknown, headers: Record<string, string> = {}) {
  return classifyPost({ headers } as unknown as IncomingMessage, body);
}

/** A 2026-07-28 read, its envelope in `_meta`, and the headers the HTTP binding wants with it. */
const modernRead = {
  jsonrpc: '2.0',
  id: 7,
  method: 'resources/read',
  params: { uri: 'a://1', _meta: envelope },
};
const modernHeaders = { 'mcp-protocol-version': MODERN, 'mcp-method': 'resources/read', 'mcp-name': 'a://1' };

describe('classifyPost', () => {
  it('takes posted responses, results and errors, to the legacy session path', () => {
    expect(post({ jsonrpc: '2.0', id: 1, result: {} })).toEqual({ kind: 'legacy' });
    expect(post({ jsonrpc: '2.0', id: 'x', error: { code: -1, message: 'no' } })).toEqual({ kind: 'legacy' });
    expect(post({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error' } })).toEqual({
      kind: 'legacy',
    });
  });

  it('refuses what only looks like a response', () => {
    for (const body of [
      { jsonrpc: '2.0', id: 1, result: 'not an object' },
      { jsonrpc: '2.0', id: 1, error: { message: 'no code' } },
      { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'both' } },
      { jsonrpc: '2.0', id: 1 },
      { result: {} },
      'a string',
      42,
      null,
    ]) {
      const route = post(body);
      expect(route.kind, JSON.stringify(body)).toBe('refused');
      if (route.kind === 'refused') expect(route.refusal.status).toBe(400);
    }
  });

  it('routes a 2026-07-28 request with its headers, and a 2025 request to the session path', () => {
    const route = post(modernRead, modernHeaders);
    expect(route.kind).toBe('modern');
    if (route.kind === 'modern')
      expect(route.route.message).toMatchObject({ id: 7, method: 'resources/read' });
    expect(post({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'a://1' } })).toEqual({
      kind: 'legacy',
    });
  });

  it('refuses a 2026-07-28 request whose Mcp-Name disagrees with its body', () => {
    const route = post(modernRead, { ...modernHeaders, 'mcp-name': 'a://2' });
    expect(route.kind).toBe('refused');
    if (route.kind === 'refused')
      expect(route.refusal.error.data).toMatchObject({ reason: 'header_mismatch' });
  });
});
