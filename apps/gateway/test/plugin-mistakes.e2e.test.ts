import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, type GatewayProcess, httpUpstream, startGateway } from './support/harness.js';

// An in-house plugin whose request hook answers something other than an outcome, through the real CLI:
// its request fails with a JSON-RPC error, and the gateway goes on (found from outside: `{ ok: true }`
// without a result killed the gateway, every session with it; an error that was no GatewayError went out
// with no code).

const shared = new Cleanup();
afterAll(() => shared.run());
let gw: GatewayProcess;

beforeAll(async () => {
  const docs = await httpUpstream(shared, { name: 'docs', behaviorTools: true });
  gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { docs: { url: docs.url } },
    plugins: [[fileURLToPath(new URL('./fixtures/careless-plugin.js', import.meta.url)), {}]],
  });
}, 30_000);

describe('a plugin answering no outcome', () => {
  it.each(['okNoResult', 'resultString', 'errPlain'])(
    'fails only its request (%s), with a JSON-RPC error, and the gateway serves on',
    async (mode) => {
      const client = await connectHttp(shared, gw.url);
      const call = (m: string) =>
        client.request({ method: 'tools/call', params: { name: 'docs__echo', arguments: { mode: m } } });
      await expect(call(mode)).rejects.toMatchObject({ code: -32603 });
      expect(await call('fine')).toMatchObject({ structuredContent: expect.anything() });
      expect(gw.running()).toBe(true);
    },
  );
});
