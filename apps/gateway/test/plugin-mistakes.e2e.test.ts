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

// Found from outside: a code thrown or answered by a plugin reached the client unchanged (14, 200, 123.5,
// the specification's -32042; -32021 even became HTTP 400 on 2026-07-28), without data.reason; a thrown
// exception's own text (a connection string, a token) went to the caller and nowhere else, the plugin
// unnamed; `{ ok: false }` said "undefined", a thrown object "[object Object]", and an upstreamCall hook
// answering null was told about request hooks.
describe("a plugin's own mistakes", () => {
  const named = { code: -32603, data: { reason: 'internal', plugin: 'acme-careless' } };

  // First of the throws in this file: the warning is written once per plugin, hook and kind in 10 s.
  it('log a thrown exception, naming the plugin, and keep its text from the caller', async () => {
    const client = await connectHttp(shared, gw.url);
    const logged = gw.waitForLine(/WARN.*plugin request hook failed.*hunter2/, {
      stream: 'stderr',
      timeoutMs: 10_000,
    });
    const error = await call(client, 'throwSecret').catch((e: unknown) => e as Error);
    expect(error).toMatchObject({
      ...named,
      message: expect.stringContaining("plugin acme-careless's request hook"),
    });
    expect(error.message).not.toContain('hunter2');
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect((await logged)[0]).toContain('acme-careless');
  });

  it.each(['throwCode200', 'throwCode14', 'throwCodeSpec', 'throwCode21', 'errFractional', 'errSpec'])(
    'fail the request -32603 internal naming the plugin, not with its code (%s)',
    async (mode) => {
      const client = await connectHttp(shared, gw.url);
      await expect(call(client, mode)).rejects.toMatchObject({
        ...named,
        message: expect.stringContaining('acme-careless'),
      });
    },
  );

  it('answer a 2026-07-28 client -32603 with HTTP 200, never the spec code and its status', async () => {
    const client = await connectModernHttp(shared, gw.url);
    await expect(call(client, 'throwCode21')).rejects.toMatchObject(named);
    await expect(call(client, 'throwCodeSpec')).rejects.toMatchObject(named);
  });

  it("keep an error the plugin registered or made with core's factories", async () => {
    const client = await connectHttp(shared, gw.url);
    await expect(call(client, 'refuse')).rejects.toMatchObject({
      code: -32007,
      message: 'not you',
      data: { reason: 'forbidden' },
    });
  });

  it.each([
    ['okFalseNoError', '{ ok: false } without an error'],
    ['throwObject', 'a value that is no Error (object)'],
    ['throwUndefined', 'a value that is no Error (undefined)'],
    ['upstreamNull', "upstreamCall hook answered null; an upstreamCall hook must return next()'s outcome"],
  ])('say what the plugin did (%s)', async (mode, said) => {
    const client = await connectHttp(shared, gw.url);
    const error = await call(client, mode).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ ...named, message: expect.stringContaining(said) });
    expect(error.message).not.toMatch(/\[object Object\]|error: undefined/);
  });
});
