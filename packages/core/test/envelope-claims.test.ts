import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { openSession } from '../src/downstream/session.js';
import {
  Cleanup,
  connect,
  eventually,
  httpUpstream,
  startGateway,
  upstreamConfig,
} from './support/gateway.js';

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

// A 2026-07-28 request on a session's own channel (stdio, WebSocket) is answered by the gateway itself
// (`ModernSessionAnswers`), like over HTTP: no SDK Server needs to exist for it.
describe('a 2026-07-28 request on a session channel', () => {
  it('is answered by the gateway itself, its result encoded for the era, a bad envelope refused as the SDK would', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', behaviorTools: true });
    const gateway = await startGateway(cleanup, [upstreamConfig('docs', docs.url)]);
    const session = openSession(gateway, { transport: 'memory' });
    cleanup.add(() => session.close());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // The session's transport, wrapped, with no SDK Server connected to it: only the gateway can answer.
    const routed = session.wrap(serverSide);
    await routed.start();
    const answers: Record<string, unknown>[] = [];
    clientSide.onmessage = (m) => answers.push(m as Record<string, unknown>);
    await clientSide.start();
    const meta = { [VERSION_KEY]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } });
    await clientSide.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'docs__echo', arguments: { text: 'hi' }, _meta: { ...meta, progressToken: 'p' } },
    });
    await clientSide.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: { _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': 'not an object' } },
    });
    await eventually(() => answers.filter((a) => a.id !== undefined).length === 3, 'three answers');
    type Answer = { result: { tools: { name: string }[]; content: unknown }; error: unknown };
    const byId = (id: number) => answers.find((a) => a.id === id) as unknown as Answer;
    expect(byId(1).result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(byId(1).result.tools.map((t) => t.name)).toContain('docs__echo');
    expect(JSON.stringify(byId(2).result.content)).toContain('hi');
    expect(byId(3).error).toMatchObject({ code: -32602 });
  });
});
