import { FixtureState, startConformanceHttp } from '@switchyard/testkit/conformance';
import { afterEach, describe, expect, it } from 'vitest';
import { testRequest } from '../src/testing.js';
import { Cleanup, connect, startGateway, upstreamConfig } from './support/gateway.js';

// SEP-2243 between the gateway and a modern Streamable HTTP upstream that checks `Mcp-Param-*` headers:
// the testkit's conformance fixture, whose test_custom_header tool mirrors `region` in Mcp-Param-Region.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function fixtureBehindGateway() {
  const fixture = await startConformanceHttp(new FixtureState());
  cleanup.add(() => fixture.close());
  const gateway = await startGateway(cleanup, [upstreamConfig('fx', fixture.url)]);
  return { fixture, gateway, client: await connect(cleanup, gateway) };
}

/** A 2026-07-28 tools/call posted straight to the fixture, with the headers given. */
async function callDirect(url: string, region: string, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'test_custom_header',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'test_custom_header',
        arguments: { region },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    }),
  });
  return { status: res.status, text: await res.text() };
}

describe('Mcp-Param headers on the way to a modern HTTP upstream', () => {
  it("calls a tool that declares x-mcp-header with the headers the upstream checks, whatever the value's encoding", async () => {
    const { fixture, gateway, client } = await fixtureBehindGateway();
    // The upstream does check: without the header, or with a wrong one, it refuses the call itself.
    expect(await callDirect(fixture.url, 'eu', {})).toMatchObject({ status: 400, text: /-32020/ });
    expect(await callDirect(fixture.url, 'eu', { 'mcp-param-region': 'us' })).toMatchObject({ status: 400 });
    expect(await callDirect(fixture.url, 'eu', { 'mcp-param-region': 'eu' })).toMatchObject({ status: 200 });

    for (const region of ['us-west1', ' padded ', 'Zürich', 'line1\nline2', '', '=?base64?SGk=?=']) {
      const result = await client.callTool({ name: 'fx__test_custom_header', arguments: { region } });
      expect(result.content).toEqual([{ type: 'text', text: `region: ${region}` }]);
    }
    // A 2026-07-28 HTTP request's own headers are checked against the tool it was routed to.
    const call = (name: string, region: string, headers: Record<string, string>) =>
      gateway.handle(
        testRequest(
          'tools/call',
          { name, arguments: { region } },
          { client: { era: 'modern', capabilities: {}, header: (h) => headers[h.toLowerCase()] } },
        ),
      );
    expect(await call('fx__test_custom_header', 'eu', {})).toMatchObject({
      ok: false,
      error: { code: -32020, data: { reason: 'header_mismatch', mismatch: { header: 'Mcp-Param-Region' } } },
    });
    expect(await call('fx__test_custom_header', 'eu', { 'mcp-param-region': 'us' })).toMatchObject({
      ok: false,
      error: { code: -32020 },
    });
    expect(await call('fx__test_custom_header', 'eu', { 'mcp-param-region': 'eu' })).toMatchObject({
      ok: true,
    });
    expect(await call('fx__test_simple_text', 'eu', {})).toMatchObject({ ok: true });
  });
});
