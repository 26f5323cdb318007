import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  type GatewayProcess,
  httpUpstream,
  startGateway,
  writeConfig,
} from './support/harness.js';
import { connectModernHttp } from './support/named.js';
import { connectStdio } from './support/stdio.js';

// An in-house plugin whose request hook answers something other than an outcome, through the real CLI:
// its request fails with a JSON-RPC error, and the gateway goes on (found from outside: `{ ok: true }`
// without a result killed the gateway, every session with it; an error that was no GatewayError went out
// with no code).

const shared = new Cleanup();
afterAll(() => shared.run());
let gw: GatewayProcess;
let docsUrl: string;
const PLUGIN = fileURLToPath(new URL('./fixtures/careless-plugin.js', import.meta.url));

beforeAll(async () => {
  const docs = await httpUpstream(shared, { name: 'docs', behaviorTools: true });
  docsUrl = docs.url;
  gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { docs: { url: docs.url } },
    plugins: [[PLUGIN, {}]],
  });
}, 30_000);

const call = (client: Client, mode: string) =>
  client.request({ method: 'tools/call', params: { name: 'docs__echo', arguments: { mode } } });

describe('a plugin answering no outcome', () => {
  it.each(['okNoResult', 'resultString', 'errPlain'])(
    'fails only its request (%s), with a JSON-RPC error, and the gateway serves on',
    async (mode) => {
      const client = await connectHttp(shared, gw.url);
      await expect(call(client, mode)).rejects.toMatchObject({ code: -32603 });
      expect(await call(client, 'fine')).toMatchObject({ structuredContent: expect.anything() });
      expect(gw.running()).toBe(true);
    },
  );
});

// Found from outside: an answer JSON cannot write (a cycle, a BigInt, 100,000 levels) threw where the
// listener serialized it: a 2025 client (HTTP or stdio) never heard back, a 2026-07-28 one got HTTP 500.
describe('a plugin answering what JSON cannot write', () => {
  const MODES = ['resultCycle', 'resultBigInt', 'resultDeep', 'errBigInt'];
  const unwritable = { code: -32603, data: { reason: 'internal' } };

  it.each(MODES)('answers a 2025 HTTP client -32603 internal (%s), and serves on', async (mode) => {
    const client = await connectHttp(shared, gw.url);
    await expect(call(client, mode)).rejects.toMatchObject(unwritable);
    expect(await call(client, 'fine')).toMatchObject({ structuredContent: expect.anything() });
  });

  it.each(MODES)('answers a 2026-07-28 HTTP client -32603 internal (%s), not HTTP 500', async (mode) => {
    const client = await connectModernHttp(shared, gw.url);
    await expect(call(client, mode)).rejects.toMatchObject(unwritable);
    expect(await call(client, 'fine')).toMatchObject({ structuredContent: expect.anything() });
  });

  it('answers a stdio client -32603 internal, and serves on', async () => {
    const file = await writeConfig(shared, {
      listen: { stdio: true },
      mcpServers: { docs: { url: docsUrl } },
      plugins: [[PLUGIN, {}]],
    });
    const { client } = await connectStdio(shared, file);
    for (const mode of MODES) await expect(call(client, mode)).rejects.toMatchObject(unwritable);
    expect(await call(client, 'fine')).toMatchObject({ structuredContent: expect.anything() });
  }, 30_000);
});

// Found from outside: params JSON cannot write (a plugin's request hook put a BigInt or a cycle into the
// arguments) failed the send, which was taken for a broken connection: the shared HTTP upstream went to
// backoff, and every other session's calls failed -32003 until it reconnected.
describe('a plugin putting what JSON cannot write into the params', () => {
  it.each(['argsBigInt', 'argsCycle'])(
    'fails that request -32603 internal (%s); the upstream stays connected for everyone',
    async (mode) => {
      const careless = await connectHttp(shared, gw.url, 'careless');
      const other = await connectHttp(shared, gw.url, 'other');
      await expect(call(careless, mode)).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining("request's params cannot be serialized"),
        data: { reason: 'internal', upstream: 'docs' },
      });
      expect(await call(other, 'fine')).toMatchObject({ structuredContent: expect.anything() });
    },
  );
});
