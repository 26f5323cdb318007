import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  Cleanup,
  GATEWAY_CLI,
  httpUpstream,
  startGateway,
  TESTKIT_CLI,
  writeConfig,
} from './support/harness.js';
import {
  CLIENT_ROOTS,
  type ClientEra,
  connectOverHttp,
  firstText,
  interactiveClient,
} from './support/interactive.js';

// Server-to-client requests (sampling, elicitation, roots) through the gateway, in all four combinations
// of legacy and modern (2026-07-28) upstreams and clients: `old` is a legacy-only upstream over HTTP,
// `mod` a modern one (it answers input-required results), `local` a legacy upstream over stdio (nothing
// on the wire relates its requests: the gateway works out which session asked).

/** Probes in place instead of on a sibling process (the SDK does that for the base class only). */
class InPlaceStdio extends StdioClientTransport {}

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let url = '';
let stats: { old: () => Record<string, number>; mod: () => Record<string, number> };

beforeAll(async () => {
  const old = await httpUpstream(shared, { name: 'old', resources: 1, behaviorTools: true });
  const mod = await httpUpstream(shared, { name: 'mod', resources: 1, behaviorTools: true, modern: true });
  const gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    clients: { alice: { token: 'alice-token' }, bob: { token: 'bob-token' } },
    mcpServers: {
      old: { url: old.url },
      mod: { url: mod.url },
      local: { command: process.execPath, args: [TESTKIT_CLI, '--name', 'local', '--behavior-tools'] },
    },
  });
  url = gw.url;
  stats = { old: () => old.server.stats.toolCalls, mod: () => mod.server.stats.toolCalls };
  return () => shared.run();
});

async function connected(era: ClientEra, capabilities?: Record<string, unknown>, token = 'alice-token') {
  const { client, inputs } = interactiveClient(era, capabilities);
  await connectOverHttp(cleanup, client, url, token);
  expect(client.getProtocolEra()).toBe(era);
  return { client, inputs };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }, { timeout: 15_000 });

describe.each(['legacy', 'modern'] as const)('a %s client', (era) => {
  it.each(['old', 'mod', 'local'])(
    'is asked exactly what upstream %s needs, and its answers go back',
    async (up) => {
      const { client, inputs } = await connected(era);
      const elicited = await call(client, `${up}__elicit`, { message: 'Favourite number?' });
      expect(JSON.parse(firstText(elicited))).toEqual({ action: 'accept', content: { answer: 'forty-two' } });
      expect(inputs.elicitations).toEqual([
        expect.objectContaining({ message: 'Favourite number?', requestedSchema: expect.any(Object) }),
      ]);

      const sampled = await call(client, `${up}__sample`, { prompt: 'hello' });
      expect(firstText(sampled)).toBe('sampled: hello');
      expect(inputs.samplings).toHaveLength(1);

      const roots = await call(client, `${up}__roots`);
      expect(JSON.parse(firstText(roots))).toEqual(CLIENT_ROOTS);
      expect(inputs.roots).toBe(1);
    },
  );

  it('without the capability is not asked, and the upstream gets a clear error', async () => {
    const { client, inputs } = await connected(era, { sampling: {} });
    const bare = await connected(era, {});
    for (const [asking, tool] of [
      [client, 'old__elicit'],
      [client, 'mod__elicit'],
      [bare.client, 'old__sample'],
      [bare.client, 'mod__sample'],
    ] as const) {
      const outcome = await call(asking, tool).then(
        (result) => ({
          text: result.isError ? firstText(result) : `unexpected success ${JSON.stringify(result)}`,
          code: undefined,
        }),
        (error: Error & { code?: number }) => ({ text: error.message, code: error.code }),
      );
      expect(outcome.text).toMatch(/elicitation|sampling|capabilit/i);
      // A 2025 client hears it as from a 2025 upstream, a tool error: not -32021, a code only 2026-07-28
      // has (found from outside).
      if (era === 'legacy') expect(outcome.code).toBeUndefined();
    }
    expect(inputs.elicitations).toEqual([]);
  });
});

describe('requestState through the gateway (modern client, manual multi round-trip)', () => {
  const anyResult = { '~standard': { version: 1, vendor: 't', validate: (value: unknown) => ({ value }) } };
  const ask = (client: Client, name: string, extra: Record<string, unknown> = {}) =>
    client.request(
      { method: 'tools/call', params: { name, arguments: { message: 'x' }, ...extra } } as never,
      anyResult as never,
      { allowInputRequired: true, timeout: 15_000 } as never,
    ) as Promise<Record<string, unknown>>;

  it.each(['mod', 'old'])(
    'is sealed: tampered, or replayed by another caller or against another upstream, it is refused (%s)',
    async (up) => {
      const { client } = await connected('modern');
      const first = await ask(client, `${up}__elicit`);
      expect(first).toMatchObject({ resultType: 'input_required', inputRequests: expect.any(Object) });
      const state = String(first.requestState);
      const key = Object.keys(first.inputRequests as object)[0]!;
      const answers = { [key]: { action: 'accept', content: { answer: 'seven' } } };
      const refused = { code: -32602, data: { reason: 'invalid_request_state' } };

      const tampered = `${state.slice(0, 10)}${state[10] === 'A' ? 'B' : 'A'}${state.slice(11)}`;
      await expect(
        ask(client, `${up}__elicit`, { inputResponses: answers, requestState: tampered }),
      ).rejects.toMatchObject(refused);
      const other = up === 'mod' ? 'old' : 'mod';
      await expect(
        ask(client, `${other}__elicit`, { inputResponses: answers, requestState: state }),
      ).rejects.toMatchObject(refused);
      const { client: bob } = await connected('modern', undefined, 'bob-token');
      await expect(
        ask(bob, `${up}__elicit`, { inputResponses: answers, requestState: state }),
      ).rejects.toMatchObject(refused);

      const done = await ask(client, `${up}__elicit`, { inputResponses: answers, requestState: state });
      expect(JSON.parse(firstText(done))).toEqual({ action: 'accept', content: { answer: 'seven' } });
      expect(stats[up as 'old' | 'mod']().elicit).toBeGreaterThanOrEqual(1);
    },
  );
});

describe.each(['legacy', 'modern'] as const)('a %s client over stdio', (era) => {
  it('is asked what a legacy and a modern upstream need, and its answers go back', async () => {
    const old = await httpUpstream(cleanup, { name: 'old', resources: 1, behaviorTools: true });
    const mod = await httpUpstream(cleanup, { name: 'mod', resources: 1, behaviorTools: true, modern: true });
    const config = await writeConfig(cleanup, {
      mcpServers: { old: { url: old.url }, mod: { url: mod.url } },
    });
    const { client, inputs } = interactiveClient(era);
    await client.connect(
      new InPlaceStdio({
        command: process.execPath,
        args: [GATEWAY_CLI, '--config', config],
        stderr: 'ignore',
      }),
    );
    cleanup.add(() => client.close());
    expect(client.getProtocolEra()).toBe(era);
    const elicited = await call(client, 'old__elicit', { message: 'Over stdio?' });
    expect(JSON.parse(firstText(elicited))).toEqual({ action: 'accept', content: { answer: 'forty-two' } });
    expect(firstText(await call(client, 'mod__sample', { prompt: 'stdio' }))).toBe('sampled: stdio');
    expect(JSON.parse(firstText(await call(client, 'mod__roots')))).toEqual(CLIENT_ROOTS);
    expect(inputs).toMatchObject({
      elicitations: [expect.any(Object)],
      samplings: [expect.any(Object)],
      roots: 1,
    });
  });
});
