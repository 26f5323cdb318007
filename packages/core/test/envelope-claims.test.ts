import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connect, httpUpstream, startGateway, upstreamConfig } from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

// The protocol version on the upstream hop is the one the gateway negotiated with that upstream. A
// client's own claim in `params._meta` (any string, a header's worth of garbage included) never replaces
// it: it once became the upstream request's MCP-Protocol-Version header, which node refused to write,
// and the gateway took the upstream for down and reconnected it, failing everyone's requests meanwhile.
describe('a client claiming a protocol version in _meta', () => {
  it('costs nothing upstream: the call is served, the upstream stays connected', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', behaviorTools: true, modern: true });
    const gateway = await startGateway(cleanup, [upstreamConfig('docs', docs.url)]);
    expect(gateway.status()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    const client = await connect(cleanup, gateway);
    const handshakes = docs.server.stats.handshakes;
    for (const claim of ['bad\r\nheader', '\u0000', '1999-01-01', '2025-06-18', 'x'.repeat(10_000)]) {
      const result = await client.request({
        method: 'tools/call',
        params: { name: 'docs__echo', arguments: { text: 'hi' }, _meta: { [VERSION_KEY]: claim } },
      } as never);
      expect(JSON.stringify(result), JSON.stringify(claim.slice(0, 20))).toContain('hi');
    }
    expect(gateway.status()[0]).toMatchObject({ state: 'ready' });
    expect(docs.server.stats.handshakes).toBe(handshakes);
  });
});
