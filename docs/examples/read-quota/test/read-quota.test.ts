// How to test an in-house plugin: set it up with `setupPlugins`, put it in a real Gateway in front of a
// real upstream (a testkit server over HTTP on loopback), and talk to it with the official SDK client,
// once per identity.
import type { Client } from '@modelcontextprotocol/client';
import {
  Gateway,
  type Identity,
  MemoryStore,
  PluginError,
  type Store,
  setupPlugins,
  silentLogger,
} from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import quota, { contentBytes } from '../index.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

const PAYLOAD = 1000;

async function gatewayWithQuota(options: Record<string, unknown>, store: Store = new MemoryStore()) {
  const upstream = new TestServer({ name: 'docs', resources: 5, payloadBytes: PAYLOAD });
  const { url } = await upstream.listenHttp();
  cleanup.push(() => upstream.close());
  const plugins = await setupPlugins(
    [{ plugin: quota, options, source: './read-quota/index.js' }],
    silentLogger,
    { store },
  );
  const gateway = new Gateway({
    upstreams: [
      { name: 'docs', prefix: true, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } },
    ],
    plugins,
    logger: silentLogger,
  });
  cleanup.push(() => gateway.close());
  await gateway.start();
  return gateway;
}

async function clientAs(gateway: Gateway, identity: Identity): Promise<Client> {
  // An official SDK client on an in-process session of the gateway, acting as `identity`.
  const { client, close } = await connectInMemoryClient(gateway, { identity });
  cleanup.push(close);
  return client;
}

const alice: Identity = { id: 'alice', groups: [], anonymous: false };
const bob: Identity = { id: 'bob', groups: [], anonymous: false };
const read = (client: Client, n: number) =>
  client.request({ method: 'resources/read', params: { uri: `docs+test://docs/r/${n}` } });

describe('read-quota example plugin', () => {
  it('refuses a client past its byte quota with rate_limited, per client, until its window resets', async () => {
    let now = 960_000; // the start of a window (windows are aligned on multiples of windowMs)
    const gateway = await gatewayWithQuota({ bytesPerWindow: 2 * PAYLOAD, windowMs: 60_000, now: () => now });
    const a = await clientAs(gateway, alice);
    const b = await clientAs(gateway, bob);
    await read(a, 0);
    await read(a, 1);
    await expect(read(a, 2)).rejects.toMatchObject({
      code: -32006,
      data: { reason: 'rate_limited', retryAfterMs: 60_000, quota: 'read-bytes' },
    });
    // Another client has its own quota; listing is not a read and is never counted.
    await read(b, 0);
    await a.request({ method: 'resources/list', params: {} });
    now += 60_000;
    await expect(read(a, 2)).resolves.toMatchObject({
      contents: [expect.objectContaining({ uri: 'docs+test://docs/r/2' })],
    });
  });

  it('keeps one quota per client across gateways that share a store (replicas)', async () => {
    const shared = new MemoryStore();
    cleanup.push(() => shared.dispose());
    const options = { bytesPerWindow: 2 * PAYLOAD, windowMs: 60_000, now: () => 960_000 };
    const one = await clientAs(await gatewayWithQuota(options, shared), alice);
    const two = await clientAs(await gatewayWithQuota(options, shared), alice);
    await read(one, 0);
    await read(two, 1);
    await expect(read(one, 2)).rejects.toMatchObject({ code: -32006 });
    await expect(read(two, 2)).rejects.toMatchObject({ code: -32006 });
  });

  it('refuses bad options at start-up', async () => {
    const error = await setupPlugins(
      [{ plugin: quota, options: { bytesPerWindow: -1 }, source: 'q' }],
      silentLogger,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({
      code: 'PLUGIN_INVALID_OPTIONS',
      message:
        'Plugin @acme/switchyard-read-quota: options.bytesPerWindow: expected a positive integer (bytes per window), got -1',
    });
    const typo = await setupPlugins(
      [{ plugin: quota, options: { bytesPerWindow: 1, windwMs: 5 }, source: 'q', at: '$.plugins[4]' }],
      silentLogger,
    ).catch((e: unknown) => e);
    expect(typo).toMatchObject({
      code: 'PLUGIN_INVALID_OPTIONS',
      message:
        'Plugin @acme/switchyard-read-quota ($.plugins[4]): options.windwMs: unknown option (known: bytesPerWindow, windowMs, now), got 5',
    });
  });

  it('counts text and blob bytes', () => {
    expect(
      contentBytes({ contents: [{ text: 'héllo' }, { blob: Buffer.from([1, 2, 3]).toString('base64') }] }),
    ).toBe(9);
    expect(contentBytes({})).toBe(0);
  });
});
