import { afterEach, describe, expect, it } from 'vitest';
import { eraFront } from './support/era-front.js';
import { Cleanup, connectHttp, httpUpstream, startGateway } from './support/harness.js';

// An upstream restarted on the same URL speaking the other era (DESIGN §6: both eras in any combination;
// §11: retried until it can be served), through the built gateway.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const httpListen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

/** A legacy (2025) and a modern-only (2026-07-28) testkit server, each with the resources `test://hb/r/*`. */
async function bothEras() {
  const legacy = await httpUpstream(cleanup, { name: 'hb', resources: 3 });
  const modern = await httpUpstream(cleanup, { name: 'hb', modern: true, resources: 3 });
  return {
    legacy: { server: legacy.server, target: { url: legacy.url, modernOnly: false } },
    modern: { server: modern.server, target: { url: modern.url, modernOnly: true } },
  };
}

describe('an upstream that comes back in the other era', () => {
  it('reconnects a legacy upstream restarted as one that speaks 2026-07-28 only', async () => {
    // Found from outside: the gateway kept the legacy verdict of its first connection and retried
    // `initialize` for ever (HTTP 400 "speaks 2026-07-28 only"): unavailable until a gateway restart.
    const { legacy, modern } = await bothEras();
    const front = await eraFront(cleanup, legacy.target);
    const gw = await startGateway(cleanup, { listen: httpListen, mcpServers: { hb: { url: front.url } } });
    await gw.waitForLine(/\[switchyard:upstream:hb\] connected .*era="legacy"/);
    front.restart(modern.target);
    await gw.waitForLine(/\[switchyard:upstream:hb\] connected .*era="modern"/);
    const client = await connectHttp(cleanup, gw.url);
    expect((await client.readResource({ uri: 'hb+test://hb/r/1' })).contents).toHaveLength(1);
    expect(modern.server.stats.requests['resources/read']).toBe(1);
    expect(legacy.server.stats.requests['resources/read']).toBeUndefined();
  });

  it('reconnects a modern upstream restarted as one that speaks 2025 only', async () => {
    const { legacy, modern } = await bothEras();
    const front = await eraFront(cleanup, modern.target);
    const gw = await startGateway(cleanup, { listen: httpListen, mcpServers: { hb: { url: front.url } } });
    await gw.waitForLine(/\[switchyard:upstream:hb\] connected .*era="modern"/);
    const client = await connectHttp(cleanup, gw.url);
    // Gone for a moment (a request finds it so), then back on the same port in the other era.
    await front.down();
    await expect(client.readResource({ uri: 'hb+test://hb/r/1' })).rejects.toThrow(/unavailable/);
    await gw.waitForLine(/\[switchyard:upstream:hb\] .*ECONNREFUSED/);
    await front.up(legacy.target);
    await gw.waitForLine(/\[switchyard:upstream:hb\] connected .*era="legacy"/);
    expect((await client.readResource({ uri: 'hb+test://hb/r/1' })).contents).toHaveLength(1);
    expect(legacy.server.stats.requests['resources/read']).toBe(1);
    expect(modern.server.stats.requests['resources/read']).toBeUndefined();
  });
});
