import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { TestServerOptions } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  eventually,
  GATEWAY_CLI,
  httpUpstream,
  nextNotification,
  writeConfig,
} from './support/harness.js';

// Modern-era clients (2026-07-28) of the gateway over stdio, in front of a legacy and a modern upstream.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Probes in place instead of on a sibling process (the SDK does that for the base class only). */
class InPlaceStdio extends StdioClientTransport {}

const upstream = (options: TestServerOptions) => httpUpstream(cleanup, options);

async function modernClientOverStdio() {
  const old = await upstream({ name: 'old', resources: 6, pageSize: 3 });
  const mod = await upstream({
    name: 'mod',
    modern: true,
    resources: 2,
    cacheTtlMs: 60_000,
    cacheScope: 'public',
  });
  const config = await writeConfig(cleanup, { mcpServers: { old: { url: old.url }, mod: { url: mod.url } } });
  const client = new Client(
    { name: 'modern-client', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new InPlaceStdio({
      command: process.execPath,
      args: [GATEWAY_CLI, '--config', config],
      stderr: 'ignore',
    }),
  );
  cleanup.add(() => client.close());
  return { client, old, mod };
}

describe('modern clients over stdio', () => {
  it('negotiates the modern era and gets freshness hints on every cacheable result', async () => {
    const { client } = await modernClientOverStdio();
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const first = (await client.request({ method: 'resources/list', params: {} })) as Record<string, unknown>;
    expect(first).toMatchObject({ ttlMs: 0, cacheScope: 'private' }); // old (legacy) says nothing: private
    const second = (await client.request({
      method: 'resources/list',
      params: { cursor: first.nextCursor as string },
    })) as Record<string, unknown>;
    expect(second.cacheScope).toBe('private'); // one scope for the whole enumeration
    // A read passes the upstream's own hints through; a legacy upstream's read gets the safe default.
    const hinted = (await client.request({
      method: 'resources/read',
      params: { uri: 'mod+test://mod/r/1' },
    })) as Record<string, unknown>;
    expect(hinted).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    const plain = (await client.request({
      method: 'resources/read',
      params: { uri: 'old+test://old/r/1' },
    })) as Record<string, unknown>;
    expect(plain).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'old+test://old/missing' } }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('listens to a legacy upstream resource: resources/subscribe upstream, updates on the stream', async () => {
    const { client, old } = await modernClientOverStdio();
    const updated = nextNotification(client, 'notifications/resources/updated');
    const subscription = await client.listen({ resourceSubscriptions: ['old+test://old/r/2'] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual(['old+test://old/r/2']);
    await eventually(() => old.server.stats.subscribed['test://old/r/2'] === 1, 'the upstream subscription');
    await old.server.triggerUpdated('test://old/r/2');
    expect(await updated).toMatchObject({ uri: 'old+test://old/r/2' });
    await subscription.close();
    await eventually(() => old.server.stats.subscribed['test://old/r/2'] === 0, 'the upstream unsubscribe');
  });

  it('listens to a modern upstream resource through the gateway', async () => {
    const { client, mod } = await modernClientOverStdio();
    const base = await eventually(() => mod.server.stats.listens, 'the upstream listen count');
    const updated = nextNotification(client, 'notifications/resources/updated');
    const subscription = await client.listen({ resourceSubscriptions: ['mod+test://mod/r/0'] });
    await eventually(() => mod.server.stats.listens === (base ?? 0) + 1, 'the upstream listen stream');
    await mod.server.triggerUpdated('test://mod/r/0');
    expect(await updated).toMatchObject({ uri: 'mod+test://mod/r/0' });
    await subscription.close();
    await eventually(() => mod.server.stats.listens === base, 'the upstream listen stream to close');
  });
});
