import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { endpointAt } from '../src/listeners/endpoint-path.js';
import { requestPath } from '../src/listeners/http-io.js';

describe('endpointAt', () => {
  const exists = (name: string) => name === 'dev' || name === 'ops-2';

  it('maps the MCP path to the root and <path>/<name> to a virtual server', () => {
    expect(endpointAt('/mcp', '/mcp', exists)).toBeUndefined();
    expect(endpointAt('/mcp/dev', '/mcp', exists)).toBe('dev');
    expect(endpointAt('/mcp/ops-2', '/mcp', exists)).toBe('ops-2');
    expect(endpointAt('/dev', '/', exists)).toBe('dev');
  });

  it.each([
    '/mcp/nope',
    '/mcp/dev/x',
    '/mcp/',
    '/mcp/Dev',
    '/mcp/__proto__',
    '/mcp/constructor',
    '/other',
    '/mcpdev',
    '/mcp/%64ev',
  ])('answers %s with nothing (404)', (path) => {
    expect(endpointAt(path, '/mcp', exists)).toBeNull();
  });
});

describe('requestPath', () => {
  const parsed = (target: string) => {
    try {
      return new URL(target, 'http://localhost').pathname;
    } catch {
      return undefined;
    }
  };

  // The plain-target shortcut must answer exactly what the URL parser does, tricky targets included.
  it.each([
    '/mcp',
    '/mcp/team-a',
    '/mcp/team_a~1',
    '/',
    '/mcp//x',
    '//evil/mcp',
    '//[',
    '/mcp/./x',
    '/mcp/../admin',
    '/mcp/.%2e/admin',
    '/mcp/%64ev',
    '/mcp?x=1',
    '/mcp#f',
    '/mcp\\x',
    '/mcp/ünïcode',
    '/mcp/a b',
    'mcp',
    '*',
    'http://other/mcp',
  ])('%s is the path the URL parser sees', (target) => {
    expect(requestPath({ url: target } as IncomingMessage)).toBe(parsed(target));
  });
});
