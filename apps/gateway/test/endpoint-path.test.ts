import { describe, expect, it } from 'vitest';
import { endpointAt } from '../src/listeners/endpoint-path.js';

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
