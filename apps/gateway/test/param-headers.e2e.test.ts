import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, rawPost, startGateway } from './support/harness.js';

// SEP-2243 custom headers through the gateway, on the 2026-07-28 HTTP wire: it checks a modern client's
// `Mcp-Param-*` headers against what the upstream's tool declares, and writes them on its own calls to
// a modern HTTP upstream that checks them too (an SDK McpServer behind createMcpHandler does).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const ROUTE_INPUT = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    priority: { type: 'integer', 'x-mcp-header': 'Priority' },
    verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
    query: { type: 'string' },
  },
  required: ['region'],
} as const;

/** A modern-only SDK upstream whose `route` tool declares three headers; it notes each call it runs. */
async function checkingUpstream() {
  const calls: { args: Record<string, unknown>; headers: Record<string, string> }[] = [];
  const request = new AsyncLocalStorage<IncomingHttpHeaders>();
  const input = fromJsonSchema(ROUTE_INPUT as never);
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'checking', version: '1.0.0' });
      server.registerTool('route', { description: 'Routes a query', inputSchema: input }, (args) => {
        const headers = Object.entries(request.getStore() ?? {});
        const params = headers.filter(([name]) => name.startsWith('mcp-param-'));
        calls.push({ args: args as Record<string, unknown>, headers: Object.fromEntries(params) as never });
        return { content: [{ type: 'text', text: `routed ${JSON.stringify(args)}` }] };
      });
      return server;
    },
    { legacy: 'reject' },
  );
  const serve = toNodeHandler(handler);
  const http = createServer((req, res) => request.run(req.headers, () => void serve(req, res)));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanup.add(async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, calls };
}

async function gatewayInFront() {
  const upstream = await checkingUpstream();
  const gw = await startGateway(cleanup, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { up: { url: upstream.url } },
  });
  await gw.waitForLine(/\[switchyard:upstream:up\] connected .*era="modern"/);
  return { upstream, gw };
}

const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

/** A raw 2026-07-28 tools/call of up__route through the gateway, with these Mcp-Param headers. */
function callRoute(url: string, id: number, args: Record<string, unknown>, params: Record<string, string>) {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'up__route',
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      },
    },
  };
  return rawPost(url, JSON.stringify(body), {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'up__route',
    ...params,
  });
}

describe('Mcp-Param headers of modern HTTP clients', () => {
  it('accepts headers that match the arguments and refuses the others with 400 and -32020, before the upstream hears of them', async () => {
    const { upstream, gw } = await gatewayInFront();
    const accepted = [
      await callRoute(
        gw.url,
        1,
        { region: 'us-west1', priority: 42 },
        {
          'mcp-param-region': 'us-west1',
          'mcp-param-priority': '42',
        },
      ),
      await callRoute(
        gw.url,
        2,
        { region: 'Zürich', verbose: false },
        {
          'mcp-param-region': b64('Zürich'),
          'mcp-param-verbose': 'false',
        },
      ),
    ];
    for (const answer of accepted) {
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ result: { content: [{ type: 'text' }] } });
    }
    const refused = {
      missing: await callRoute(gw.url, 3, { region: 'eu' }, {}),
      'bad Base64': await callRoute(
        gw.url,
        4,
        { region: 'Hello' },
        { 'mcp-param-region': '=?base64?SGVsbG8?=' },
      ),
      mismatch: await callRoute(gw.url, 5, { region: 'eu' }, { 'mcp-param-region': 'us' }),
      'integer mismatch': await callRoute(
        gw.url,
        6,
        { region: 'eu', priority: 1 },
        {
          'mcp-param-region': 'eu',
          'mcp-param-priority': '2',
        },
      ),
    };
    for (const [what, answer] of Object.entries(refused)) {
      expect({ what, status: answer.status, json: answer.json }).toMatchObject({
        what,
        status: 400,
        json: {
          error: {
            code: -32020,
            data: { reason: 'header_mismatch', mismatch: { header: expect.stringMatching(/^Mcp-Param-/) } },
          },
        },
      });
    }
    expect((refused['integer mismatch'].json as { id: unknown }).id).toBe(6);
    // Only the two accepted calls reached the upstream, each with the headers the gateway wrote itself.
    expect(upstream.calls).toEqual([
      {
        args: { region: 'us-west1', priority: 42 },
        headers: { 'mcp-param-region': 'us-west1', 'mcp-param-priority': '42' },
      },
      {
        args: { region: 'Zürich', verbose: false },
        headers: { 'mcp-param-region': b64('Zürich'), 'mcp-param-verbose': 'false' },
      },
    ]);
  });

  it('serves the SDK client, which mirrors the arguments itself, through to the checking upstream', async () => {
    const { upstream, gw } = await gatewayInFront();
    const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
    cleanup.add(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'up__route')?.inputSchema).toMatchObject(ROUTE_INPUT);
    const args = { region: ' padded ', priority: 7, verbose: true, query: 'SELECT 1' };
    const result = await client.callTool({ name: 'up__route', arguments: args });
    expect(result.content).toEqual([{ type: 'text', text: `routed ${JSON.stringify(args)}` }]);
    expect(upstream.calls.at(-1)?.headers).toEqual({
      'mcp-param-region': b64(' padded '),
      'mcp-param-priority': '7',
      'mcp-param-verbose': 'true',
    });
  });
});

describe('Mcp-Param headers on the way to a modern HTTP upstream', () => {
  it("writes them on a legacy client's call, so the upstream that checks them accepts it", async () => {
    const { upstream, gw } = await gatewayInFront();
    const client = await connectHttp(cleanup, gw.url, 'legacy');
    expect(client.getProtocolEra()).toBe('legacy');
    const args = { region: 'Hello, 世界', priority: 3 };
    const result = await client.callTool({ name: 'up__route', arguments: args });
    expect(result.content).toEqual([{ type: 'text', text: `routed ${JSON.stringify(args)}` }]);
    expect(upstream.calls).toEqual([
      { args, headers: { 'mcp-param-region': b64('Hello, 世界'), 'mcp-param-priority': '3' } },
    ]);
  });
});
